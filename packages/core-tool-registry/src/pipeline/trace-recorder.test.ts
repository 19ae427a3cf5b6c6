import { describe, expect, it } from 'vitest';
import { ToolErrorCode } from '../contract/tool-error.js';
import { failureResult, successResult } from '../contract/tool-result.js';
import { FakeClock } from '../testing/fake-clock.js';
import { ToolCallIds } from './tool-call-ids.js';
import {
  digestArgs,
  MAX_DIGEST_FIELDS,
  MAX_DIGEST_KEY_LENGTH,
  ToolTraceRecorder,
  type ToolTraceSpan,
} from './trace-recorder.js';

function recorder(capacity?: number) {
  const clock = new FakeClock();
  const traces = new ToolTraceRecorder({
    clock,
    wallClock: () => 1_700_000_000_000,
    ...(capacity ? { capacity } : {}),
  });
  return { clock, traces };
}

describe('ToolTraceRecorder', () => {
  it('records one span per completed attempt with duration, outcome and error slug', () => {
    const { clock, traces } = recorder();
    const fetchCall = { callId: 'c1', toolId: 'web_fetch', args: { url: 'x' } };
    const first = traces.start({ ...fetchCall, attempt: 1 });
    clock.advance(120);
    first.complete(failureResult(ToolErrorCode.EXECUTION_FAILED, 'reset'));
    const second = traces.start({ ...fetchCall, attempt: 2 });
    clock.advance(30);
    second.complete(successResult('page'));
    expect(traces.spans().map(({ argsDigest: _digest, ...span }) => span)).toEqual([
      {
        callId: 'c1',
        toolId: 'web_fetch',
        attempt: 1,
        startedAt: 1_700_000_000_000,
        durationMs: 120,
        outcome: 'EXECUTION_FAILED',
        errorSlug: 'execution-failed',
      },
      {
        callId: 'c1',
        toolId: 'web_fetch',
        attempt: 2,
        startedAt: 1_700_000_000_000,
        durationMs: 30,
        outcome: 'ok',
      },
    ]);
  });

  it('completing a handle twice records one span', () => {
    const { traces } = recorder();
    const handle = traces.start({ callId: 'c', toolId: 't', attempt: 1, args: {} });
    expect(handle.complete(successResult('a'))).toBeDefined();
    expect(handle.complete(failureResult(ToolErrorCode.TIMEOUT, 'late'))).toBeUndefined();
    expect(traces.size).toBe(1);
    expect(traces.spans()[0]?.outcome).toBe('ok');
  });

  it('keeps only the newest spans (ring buffer, default 200)', () => {
    expect(new ToolTraceRecorder().capacity).toBe(200);
    const { traces } = recorder(3);
    for (let index = 0; index < 5; index += 1) {
      traces
        .start({ callId: `c${index}`, toolId: 't', attempt: 1, args: {} })
        .complete(successResult(''));
    }
    expect(traces.spans().map((span) => span.callId)).toEqual(['c2', 'c3', 'c4']);
  });

  it('digests arguments as sizes and counts, never values, so secrets are not exported', () => {
    const secret = 'sk-live-1234567890abcdef';
    const { traces } = recorder();
    traces
      .start({ callId: 'c', toolId: 'http_request', attempt: 1, args: { token: secret, tries: 3 } })
      .complete(successResult('ok'));
    const exported = traces.exportJson();
    expect(exported).not.toContain(secret);
    expect(exported).not.toContain('1234');
    // Totals add up the fields: the string's characters plus the number's digits.
    const length = secret.length + 1;
    expect(traces.spans()[0]?.argsDigest).toEqual({
      length,
      printable: length,
      fields: {
        token: { type: 'string', length: secret.length, printable: secret.length },
        tries: { type: 'number', length: 1, printable: 1 },
      },
    });
  });

  it('describes at most 16 fields and only counts the rest, so a span has a fixed size', () => {
    const args: Record<string, string> = {};
    for (let index = 0; index < 150_000; index += 1) args[`key${index}`] = 'x';
    const digest = digestArgs(args);
    expect(Object.keys(digest.fields)).toHaveLength(MAX_DIGEST_FIELDS);
    expect(digest.omittedFields).toBe(150_000 - MAX_DIGEST_FIELDS);
    expect(digest.length).toBe(MAX_DIGEST_FIELDS);
    expect(JSON.stringify(digest).length).toBeLessThan(1_000);
  });

  it('cuts a long field name', () => {
    const digest = digestArgs({ [`${'k'.repeat(100_000)}`]: 'v' });
    const [name] = Object.keys(digest.fields);
    expect(name).toBe(`${'k'.repeat(MAX_DIGEST_KEY_LENGTH)}…`);
    expect(digest.omittedFields).toBeUndefined();
  });

  it('counts control characters as non-printable', () => {
    expect(digestArgs({ text: 'a\u0001b' }).fields.text).toEqual({
      type: 'string',
      length: 3,
      printable: 2,
    });
  });

  it('notifies listeners, and a failing listener does not break recording', () => {
    const { traces } = recorder();
    const seen: ToolTraceSpan[] = [];
    traces.onSpan(() => {
      throw new Error('listener bug');
    });
    const unsubscribe = traces.onSpan((span) => seen.push(span));
    traces.start({ callId: 'a', toolId: 't', attempt: 1, args: {} }).complete(successResult(''));
    unsubscribe();
    traces.start({ callId: 'b', toolId: 't', attempt: 1, args: {} }).complete(successResult(''));
    expect(seen.map((span) => span.callId)).toEqual(['a']);
    expect(traces.size).toBe(2);
  });

  it('summarises latency per tool as a histogram and a text report', () => {
    const { clock, traces } = recorder();
    for (const [toolId, ms] of [
      ['read_file', 0.5],
      ['read_file', 5],
      ['read_file', 50],
      ['web_fetch', 1500],
    ] as const) {
      const handle = traces.start({ callId: 'c', toolId, attempt: 1, args: {} });
      clock.advance(ms);
      handle.complete(
        toolId === 'web_fetch' ? failureResult(ToolErrorCode.TIMEOUT, 'x') : successResult(''),
      );
    }
    expect(traces.histogram()).toEqual([
      {
        toolId: 'read_file',
        count: 3,
        failures: 0,
        p50Ms: 5,
        p95Ms: 50,
        maxMs: 50,
        buckets: { '<1ms': 1, '<10ms': 1, '<100ms': 1, '<1s': 0, '<10s': 0, '>=10s': 0 },
      },
      {
        toolId: 'web_fetch',
        count: 1,
        failures: 1,
        p50Ms: 1500,
        p95Ms: 1500,
        maxMs: 1500,
        buckets: { '<1ms': 0, '<10ms': 0, '<100ms': 0, '<1s': 0, '<10s': 1, '>=10s': 0 },
      },
    ]);
    expect(traces.report().split('\n')[0]).toBe(
      'tool       calls  fail  p50 ms  p95 ms  max ms  <1ms  <10ms  <100ms  <1s  <10s  >=10s',
    );
  });
});

describe('ToolCallIds', () => {
  it('gives unique ids', () => {
    const ids = new ToolCallIds();
    const seen = new Set(Array.from({ length: 1000 }, () => ids.next()));
    expect(seen.size).toBe(1000);
  });
});

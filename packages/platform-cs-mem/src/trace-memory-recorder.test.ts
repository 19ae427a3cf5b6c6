import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryStore } from './memory-store.js';
import {
  TraceMemoryRecorder,
  type TraceSpanLike,
  type TraceSpanSource,
} from './trace-memory-recorder.js';

/** A span source in the shape of the core trace recorder's listener API (in-process, not a mock). */
class SpanEmitter implements TraceSpanSource {
  readonly listeners = new Set<(span: TraceSpanLike) => void>();
  onSpan(listener: (span: TraceSpanLike) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  emit(span: TraceSpanLike): void {
    for (const listener of this.listeners) listener(span);
  }
}

let clock: number;
let store: MemoryStore;
let source: SpanEmitter;
let recorder: TraceMemoryRecorder;
let callNumber = 0;

function span(
  toolId: string,
  outcome = 'success',
  extra: Partial<TraceSpanLike> = {},
): TraceSpanLike {
  callNumber += 1;
  return { callId: `call_${callNumber}`, toolId, attempt: 1, durationMs: 5, outcome, ...extra };
}

beforeEach(() => {
  clock = 1_000_000;
  store = MemoryStore.open({ path: ':memory:', now: () => clock });
  source = new SpanEmitter();
  recorder = new TraceMemoryRecorder({ store, now: () => clock, idleGapMs: 60_000 });
  recorder.attach(source);
});

afterEach(() => {
  recorder.close();
  store.close();
});

describe('TraceMemoryRecorder', () => {
  it("records a session's calls as one episode and its successful run as a macro", () => {
    source.emit(span('read_file'));
    clock += 10;
    source.emit(span('edit_file'));
    clock += 10;
    source.emit(span('shell_execute', 'failure', { errorSlug: 'exit_1' }));
    recorder.flush();
    const [episode] = store.recentEpisodes();
    expect(episode).toMatchObject({
      sessionId: 'default',
      summary: '3 tool calls (1 failed): read_file → edit_file → shell_execute',
      startedAt: 1_000_000,
    });
    expect(episode?.toolCalls.map((call) => [call.toolId, call.outcome])).toEqual([
      ['read_file', 'success'],
      ['edit_file', 'success'],
      ['shell_execute', 'failure'],
    ]);
    expect(store.findMacros({ name: 'auto.read_file.edit_file' })).toMatchObject([
      {
        successCount: 1,
        steps: [
          { tool: 'read_file', args: {} },
          { tool: 'edit_file', args: {} },
        ],
      },
    ]);
  });

  it('counts the same successful sequence again in a later episode', () => {
    for (let round = 0; round < 3; round += 1) {
      source.emit(span('web_fetch'));
      source.emit(span('write_file'));
      clock += 120_000;
    }
    recorder.flush();
    expect(store.recentEpisodes()).toHaveLength(3);
    expect(store.findMacros({ name: 'auto.web_fetch.write_file' })[0]?.successCount).toBe(3);
  });

  it('closes an episode lazily when a session was quiet longer than the gap', () => {
    source.emit(span('read_file', 'success', { sessionId: 's1' }));
    clock += 61_000;
    source.emit(span('read_file', 'success', { sessionId: 's1' }));
    expect(store.recentEpisodes().map((e) => e.summary)).toEqual(['1 tool call: read_file']);
  });

  it('keeps the final attempt of a retried call', () => {
    const first = span('web_fetch', 'timeout');
    source.emit(first);
    source.emit({ ...first, attempt: 2, outcome: 'success' });
    source.emit(span('write_file'));
    recorder.flush();
    expect(store.recentEpisodes()[0]?.summary).toBe('2 tool calls: web_fetch → write_file');
    expect(store.findMacros({ name: 'auto.web_fetch.write_file' })).toHaveLength(1);
  });

  it('makes no macro from one tool repeated, a single call, or memory tools', () => {
    source.emit(span('read_file'));
    source.emit(span('read_file'));
    source.emit(span('memory_search_nodes'));
    source.emit(span('write_file'));
    recorder.flush();
    expect(store.stats().macros).toBe(0);
  });

  it('uses argument templates from the host and declares their placeholders as params', () => {
    recorder.close();
    const templated = new TraceMemoryRecorder({
      store,
      now: () => clock,
      argsTemplate: (s) => (s.toolId === 'read_file' ? { path: '{path}' } : { text: '{0}' }),
    });
    templated.record(span('read_file'));
    templated.record(span('text_transform'));
    templated.flush();
    expect(store.findMacros({ name: 'auto.read_file.text_transform' })[0]).toMatchObject({
      params: [{ name: 'path', type: 'string' }],
      steps: [
        { tool: 'read_file', args: { path: '{path}' } },
        { tool: 'text_transform', args: { text: '{0}' } },
      ],
    });
  });

  it('reports a write failure to onError instead of throwing into the caller', () => {
    const errors: unknown[] = [];
    const closedStore = MemoryStore.open({ path: ':memory:' });
    closedStore.close();
    const failing = new TraceMemoryRecorder({ store: closedStore, onError: (e) => errors.push(e) });
    failing.record(span('read_file'));
    expect(() => failing.flush()).not.toThrow();
    expect(errors).toHaveLength(1);
  });

  it('stops listening after close', () => {
    recorder.close();
    expect(source.listeners.size).toBe(0);
  });
});

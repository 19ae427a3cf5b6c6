import { Client } from '@modelcontextprotocol/client';
import { CallToolResultSchema } from '@modelcontextprotocol/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPlainTextResult, plainCompleteResult } from './direct-tool-calls.js';
import { modernDirectEra } from './modern-direct-era.js';

/** Values as a result arrives: parsed from JSON (so `__proto__` can be an own key). */
const viaJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value) ?? 'null');

const text = fc.oneof(fc.string(), fc.constant(''), fc.integer(), fc.constant(null));
const block = fc.record(
  {
    type: fc.constantFrom('text', 'image', 'resource_link', 'Text', 1),
    text,
    annotations: fc.oneof(
      fc.constant({ audience: ['user'] }),
      fc.constant({ priority: 'high' }),
      fc.constant(null),
    ),
    _meta: fc.oneof(fc.constant({ a: 1 }), fc.constant([])),
    extra: fc.anything(),
  },
  { requiredKeys: [] },
);
const structured = fc.oneof(
  fc.dictionary(fc.string(), fc.jsonValue()),
  fc.constant(JSON.parse('{"__proto__": {"polluted": true}, "a": 1}')),
  fc.array(fc.integer()),
  fc.constant(null),
  fc.string(),
);
const plainBlock = fc.record({ type: fc.constant('text'), text: fc.string() });
/** Mostly plain results, each part now and then replaced by something the schema must judge. */
const result = fc.record(
  {
    content: fc.oneof(
      {
        arbitrary: fc.array(fc.oneof({ arbitrary: plainBlock, weight: 6 }, block), {
          maxLength: 4,
        }),
        weight: 8,
      },
      fc.constant({}),
      fc.string(),
    ),
    isError: fc.oneof(
      { arbitrary: fc.boolean(), weight: 4 },
      fc.constant('true'),
      fc.constant(null),
    ),
    structuredContent: structured,
    _meta: fc.oneof(fc.constant({ progressToken: 1 }), fc.constant({ progressToken: {} })),
    toolResult: fc.jsonValue(),
  },
  { requiredKeys: ['content'] },
);
/** Results that must be taken (so the property above is not vacuous). */
const plainResult = fc.record(
  {
    content: fc.array(plainBlock, { maxLength: 4 }),
    isError: fc.boolean(),
    structuredContent: fc.dictionary(
      fc.string().filter((key) => key !== '__proto__'),
      fc.jsonValue(),
    ),
  },
  { requiredKeys: ['content'] },
);

describe('isPlainTextResult', () => {
  it('accepts only what CallToolResultSchema accepts, and returns it unchanged', () => {
    fc.assert(
      fc.property(fc.oneof(plainResult, result, fc.anything()), (generated) => {
        const value = viaJson(generated);
        if (!isPlainTextResult(value)) return;
        const parsed = CallToolResultSchema.safeParse(value);
        expect(parsed.success).toBe(true);
        expect(parsed.data).toStrictEqual(value);
      }),
      { numRuns: 3_000 },
    );
  });

  it('takes every result of the plain shape', () => {
    fc.assert(
      fc.property(plainResult, (generated) => {
        expect(isPlainTextResult(viaJson(generated))).toBe(true);
      }),
      { numRuns: 1_000 },
    );
  });

  it('takes the common answers: text blocks, an error flag, structured content', () => {
    for (const value of [
      { content: [{ type: 'text', text: 'Echo: hi' }] },
      { content: [] },
      { content: [{ type: 'text', text: '' }], isError: true },
      {
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
        isError: false,
      },
      { content: [{ type: 'text', text: '{"n":1}' }], structuredContent: { n: 1 } },
    ]) {
      expect(isPlainTextResult(viaJson(value)), JSON.stringify(value)).toBe(true);
    }
  });

  it('leaves everything else to the schema', () => {
    for (const value of [
      {},
      { content: [{ type: 'text', text: 'a', annotations: { audience: ['user'] } }] },
      { content: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }] },
      { content: [{ type: 'text' }] },
      { content: [{ type: 'text', text: 'a' }], _meta: {} },
      { content: [{ type: 'text', text: 'a' }], isError: 'yes' },
      { content: [{ type: 'text', text: 'a' }], structuredContent: [1] },
      JSON.parse('{"content": [], "structuredContent": {"__proto__": {}}}'),
      [],
      null,
      'text',
    ]) {
      expect(isPlainTextResult(value), JSON.stringify(value)).toBe(false);
    }
  });
});

/**
 * The SDK's own 2026-07-28 handling of results, as a client that negotiated that era has it. The
 * negotiated version is set by hand: the codec is what is under test, not a connection.
 */
function modernEra() {
  const client = new Client({ name: 'test', version: '1.0.0' });
  (client as unknown as { _negotiatedProtocolVersion: string })._negotiatedProtocolVersion =
    '2026-07-28';
  const era = modernDirectEra(client);
  if (!era) throw new Error('the SDK offers no 2026-07-28 codec');
  return era;
}

describe('plainCompleteResult (2026-07-28)', () => {
  const era = modernEra();
  /** Results as a 2026 server sends them: mostly complete, now and then another resultType. */
  const modern = fc
    .tuple(
      fc.oneof(plainResult, result, fc.anything()),
      fc.oneof(
        { arbitrary: fc.constant('complete'), weight: 6 },
        fc.constantFrom('input_required', 'Complete', 'partial', 1, null),
        fc.constant(undefined),
      ),
    )
    .map(([value, resultType]) =>
      typeof value === 'object' &&
      value !== null &&
      !Array.isArray(value) &&
      resultType !== undefined
        ? { ...value, resultType }
        : value,
    );

  it('accepts only what the SDK codec accepts as complete, and lifts it as the codec does', () => {
    fc.assert(
      fc.property(modern, (generated) => {
        const value = viaJson(generated);
        const plain = plainCompleteResult(value);
        if (!plain) return;
        const decoded = era.decode(value);
        expect(decoded.kind).toBe('complete');
        expect(decoded.kind === 'complete' && decoded.result).toStrictEqual(plain);
      }),
      { numRuns: 3_000 },
    );
  });

  it('takes every complete result of the plain shape, and nothing without resultType complete', () => {
    fc.assert(
      fc.property(plainResult, (generated) => {
        const value = viaJson(generated) as Record<string, unknown>;
        expect(plainCompleteResult({ ...value, resultType: 'complete' })).toStrictEqual(value);
        expect(plainCompleteResult(value)).toBeUndefined();
        expect(plainCompleteResult({ ...value, resultType: 'input_required' })).toBeUndefined();
      }),
      { numRuns: 1_000 },
    );
  });

  it('the codec fails what a 2026 server must not send, as the SDK does', () => {
    const kinds = [
      { content: [] },
      { content: [], resultType: 7 },
      { content: [], resultType: 'partial' },
      { content: 'nope', resultType: 'complete' },
      [1, 2],
      'text',
      { resultType: 'input_required' },
    ].map((value) => {
      const decoded = era.decode(value);
      return decoded.kind === 'invalid' ? (decoded.error as { code?: unknown }).code : decoded.kind;
    });
    expect(kinds).toEqual([
      'INVALID_RESULT',
      'INVALID_RESULT',
      'UNSUPPORTED_RESULT_TYPE',
      'INVALID_RESULT',
      'INVALID_RESULT',
      'INVALID_RESULT',
      'INVALID_RESULT',
    ]);
    expect(era.decode({ resultType: 'input_required', requestState: 's' }).kind).toBe(
      'input_required',
    );
  });
});

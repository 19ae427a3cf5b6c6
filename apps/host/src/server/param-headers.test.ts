import { describe, expect, it } from 'vitest';
import {
  decodeParamValue,
  HEADER_MISMATCH_CODE,
  headerDeclarations,
  paramHeaderMismatch,
  paramHeaderMismatchError,
} from './param-headers.js';

const SCHEMA = {
  type: 'object',
  properties: {
    sessionId: { type: 'string', 'x-mcp-header': 'Handle' },
    limit: { type: 'integer', 'x-mcp-header': 'Limit' },
    nested: { type: 'object', properties: { flag: { type: 'boolean', 'x-mcp-header': 'Flag' } } },
    plain: { type: 'string' },
  },
};

describe('Mcp-Param-* headers against a call’s arguments', () => {
  it('finds declarations reached through properties only', () => {
    expect(headerDeclarations(SCHEMA).map((each) => [each.header, each.path.join('.')])).toEqual([
      ['Handle', 'sessionId'],
      ['Limit', 'limit'],
      ['Flag', 'nested.flag'],
    ]);
    expect(headerDeclarations({ type: 'object' })).toEqual([]);
  });

  it('accepts headers equal to their arguments, plain or Base64, and absent ones for absent arguments', () => {
    const args = { sessionId: 'replica1.t-ab', limit: 3, nested: { flag: true } };
    const headers = {
      'mcp-param-handle': `=?base64?${Buffer.from('replica1.t-ab').toString('base64')}?=`,
      'mcp-param-limit': '3.0',
      'mcp-param-flag': 'true',
    };
    expect(paramHeaderMismatch(SCHEMA, args, headers)).toBeUndefined();
    expect(paramHeaderMismatch(SCHEMA, { plain: 'x', sessionId: null }, {})).toBeUndefined();
    // A header for an absent argument is ignored (nothing runs with it).
    expect(paramHeaderMismatch(SCHEMA, {}, { 'mcp-param-handle': 'replica2.t-x' })).toBeUndefined();
  });

  it('refuses a missing, different, repeated or badly encoded header', () => {
    const args = { sessionId: 'replica1.t-ab' };
    expect(paramHeaderMismatch(SCHEMA, args, {})?.detail).toMatch(/header is absent/);
    expect(paramHeaderMismatch(SCHEMA, args, { 'mcp-param-handle': 'replica2.t-ab' })?.header).toBe(
      'Mcp-Param-Handle',
    );
    expect(
      paramHeaderMismatch(SCHEMA, args, { 'mcp-param-handle': ['a', 'b'] as never }),
    ).toBeDefined();
    expect(
      paramHeaderMismatch(SCHEMA, args, { 'mcp-param-handle': '=?base64?!!?=' }),
    ).toBeDefined();
    expect(paramHeaderMismatch(SCHEMA, { limit: 3 }, { 'mcp-param-limit': '4' })).toBeDefined();
  });

  it('decodes only canonical Base64 of valid UTF-8 inside the sentinel', () => {
    expect(decodeParamValue('plain')).toBe('plain');
    expect(decodeParamValue(`=?base64?${Buffer.from('ü').toString('base64')}?=`)).toBe('ü');
    expect(decodeParamValue('=?base64?gA==?=')).toBeUndefined();
    expect(decodeParamValue('=?base64?abc?=')).toBeUndefined();
  });

  it('answers as the SDK does: -32020 naming the header', () => {
    const error = paramHeaderMismatchError({ header: 'Mcp-Param-Handle', detail: 'x' }, 5);
    expect(error).toMatchObject({
      id: 5,
      error: { code: HEADER_MISMATCH_CODE, data: { mismatch: { header: 'Mcp-Param-Handle' } } },
    });
  });
});

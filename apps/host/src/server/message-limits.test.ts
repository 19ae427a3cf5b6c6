import { describe, expect, it } from 'vitest';
import { messageTooLargeText, recoverRequestId } from './message-limits.js';

describe('recoverRequestId', () => {
  it('reads a leading id, after jsonrpc or first', () => {
    expect(recoverRequestId('{"jsonrpc":"2.0","id":12,"method":"tools/call"', '')).toBe(12);
    expect(recoverRequestId('{ "id" : "a\\"b", "jsonrpc":"2.0"', '')).toBe('a"b');
  });

  it('reads a trailing top-level id (the SDK puts it last)', () => {
    expect(recoverRequestId('{"method":"tools/call"', '"x"}},"jsonrpc":"2.0","id":3}')).toBe(3);
  });

  it('ignores an id that belongs to a nested object or a string', () => {
    expect(recoverRequestId('{"method":"x","params":{"id":1', '"arguments":{"id":2}}}')).toBe(
      undefined,
    );
    expect(recoverRequestId('{"method":"x"', '"content":"a,\\"id\\":3}"}')).toBe(undefined);
  });

  it('refuses ids that are not safe integers or strings', () => {
    expect(recoverRequestId('{"id":1.5,', '')).toBe(undefined);
    expect(recoverRequestId('{"id":null,', '')).toBe(undefined);
  });
});

describe('messageTooLargeText', () => {
  it('names the size and the limit', () => {
    expect(messageTooLargeText(70_000_000, 64 * 1024 * 1024)).toContain(
      'Message too large: 70000000 bytes, over the limit of 67108864 bytes (64 MiB)',
    );
  });
});

import { describe, expect, it } from 'vitest';
import { decodeTaskCursor, encodeTaskCursor } from './task-cursor.js';

describe('task list cursors', () => {
  it('round-trips a position', () => {
    expect(decodeTaskCursor(encodeTaskCursor(1234, 'abc'))).toEqual({
      createdAt: 1234,
      taskId: 'abc',
    });
  });

  it('refuses anything it did not make', () => {
    for (const cursor of [
      '',
      "' OR 1=1 --",
      'x'.repeat(500),
      Buffer.from('[1.5,"a"]').toString('base64url'),
      Buffer.from('{"a":1}').toString('base64url'),
    ]) {
      expect(decodeTaskCursor(cursor)).toBeUndefined();
    }
  });
});

import { describe, expect, it } from 'vitest';
import {
  asTaskError,
  jsonRpcCodeOf,
  TaskError,
  TaskErrorCode,
  taskNotFound,
} from './task-error.js';

describe('task errors', () => {
  it('answers every refusal with invalid params, and a store outage with an internal error', () => {
    for (const code of Object.values(TaskErrorCode)) {
      const expected = code === TaskErrorCode.STORE_UNAVAILABLE ? -32603 : -32602;
      expect(jsonRpcCodeOf(new TaskError(code, 'x'))).toBe(expected);
    }
  });

  it('turns a store failure into STORE_UNAVAILABLE without its message, and keeps a bad cursor', () => {
    const hidden = asTaskError(new Error('connect ECONNREFUSED 10.0.0.7:6379'));
    expect(hidden.code).toBe(TaskErrorCode.STORE_UNAVAILABLE);
    expect(hidden.message).not.toContain('10.0.0.7');
    expect(asTaskError(Object.assign(new Error('bad'), { code: 'INVALID_CURSOR' })).code).toBe(
      TaskErrorCode.INVALID_CURSOR,
    );
  });

  it('shows at most 64 characters of an id it was given', () => {
    expect(taskNotFound('x'.repeat(10_000)).message.length).toBeLessThan(250);
  });
});

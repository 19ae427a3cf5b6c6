import { randomBytes } from 'node:crypto';

/** Random bytes in a task id: 192 bits, far past guessing. */
const TASK_ID_BYTES = 24;

/** A new unguessable task id (192 random bits, base64url, 32 characters). */
export function newTaskId(): string {
  return randomBytes(TASK_ID_BYTES).toString('base64url');
}

/** A new unguessable id for one input request of a task. */
export function newRequestId(): string {
  return randomBytes(12).toString('base64url');
}

/** Whether a string has the shape of an id {@link newTaskId} makes (checked before any store lookup). */
export function isWellFormedTaskId(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{32}$/.test(value);
}

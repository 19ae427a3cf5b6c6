/**
 * Long tool calls as tasks (MCP Tasks) that outlive their request: the task service, the
 * embedded SQLite task store, and the errors a server maps to its protocol.
 */
export { boundResult, MAX_TASK_RESULT_BYTES, storedSize } from './bounded-result.js';
export { SqliteTaskStore, type SqliteTaskStoreOptions } from './sqlite-task-store.js';
export { decodeTaskCursor, encodeTaskCursor } from './task-cursor.js';
export {
  asTaskError,
  isTaskError,
  jsonRpcCodeOf,
  TaskError,
  TaskErrorCode,
  taskNotFound,
} from './task-error.js';
export { isWellFormedTaskId, newTaskId } from './task-ids.js';
export {
  type CreateTaskOptions,
  TaskService,
  type TaskServiceOptions,
  type TaskStatusEvent,
} from './task-service.js';
export {
  type ProtocolTask,
  type ProtocolTaskV2,
  type TaskView,
  toProtocolTask,
  toProtocolTaskV2,
  toTaskView,
} from './task-view.js';

import {
  limitResult,
  MAX_RESULT_CHARS,
  type ToolFailure,
  type ToolResult,
  type ToolSuccess,
} from '@toolsys/core-tool-registry';

/** The most bytes one stored task result takes, as UTF-8 JSON: 1 MiB. */
export const MAX_TASK_RESULT_BYTES = 1_048_576;

/** Room kept for a failure's message when its details are dropped. */
const MESSAGE_CHARS = 4_000;

/** The size of `result` as stored (UTF-8 JSON), in bytes. */
export function storedSize(result: ToolResult): number {
  return Buffer.byteLength(JSON.stringify(result), 'utf8');
}

/**
 * `result` held within `maxBytes` as stored (UTF-8 JSON), like any tool result: a success is cut
 * by the executor's result budget (text first, then structured data, with a note saying what was
 * cut), tightened until it fits; a failure keeps its code and hint and loses its details, then the
 * tail of its message. A result within the bound is returned as it is.
 */
export function boundResult(result: ToolResult, maxBytes = MAX_TASK_RESULT_BYTES): ToolResult {
  let size = storedSize(result);
  if (size <= maxBytes) return result;
  if (!result.ok) return boundFailure(result, maxBytes);
  // Characters may take up to six bytes each as escaped JSON: shrink the character budget by the
  // measured ratio until the bytes fit.
  let maxChars = Math.min(MAX_RESULT_CHARS, maxBytes);
  let bounded: ToolSuccess = result;
  for (let round = 0; round < 8 && size > maxBytes; round += 1) {
    maxChars = Math.max(200, Math.floor(maxChars * (maxBytes / size) * 0.9));
    bounded = limitResult(result, { maxChars }) as ToolSuccess;
    size = storedSize(bounded);
  }
  if (size <= maxBytes) return bounded;
  const { data: _dropped, ...withoutData } = bounded;
  return { ...withoutData, content: bounded.content.slice(0, Math.floor(maxBytes / 8)) };
}

function boundFailure(failure: ToolFailure, maxBytes: number): ToolResult {
  const { details: _details, ...error } = failure.error;
  const room = Math.max(200, Math.min(MESSAGE_CHARS, Math.floor(maxBytes / 8)));
  const cut = error.message.length > room;
  return {
    ...failure,
    error: {
      ...error,
      message: cut
        ? `${error.message.slice(0, room)}… [the rest of this message and its details were cut to keep the stored result small]`
        : error.message,
    },
  };
}

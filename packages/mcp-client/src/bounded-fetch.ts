/**
 * The most bytes one answer of a remote HTTP MCP server may take: a JSON body, or one event of an
 * SSE stream (the stream itself may run on). 16 MiB: far above any result the tool system passes
 * on (200,000 characters), far below what would strain the host's memory.
 */
export const MAX_REMOTE_MESSAGE_BYTES = 16 * 1024 * 1024;

/** A `fetch` as the MCP SDK transports take it. */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * A `fetch` whose response bodies are bounded while they are read: a JSON body past `maxBytes`,
 * or one SSE event past it (bytes since the last blank line), ends the response with an error
 * naming the limit, so an answer is never buffered whole before being cut.
 */
export function boundedFetch(
  maxBytes = MAX_REMOTE_MESSAGE_BYTES,
  base: FetchLike = fetch,
): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    if (!response.body) return response;
    const isStream = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    const declared = Number(response.headers.get('content-length'));
    if (!isStream && Number.isFinite(declared) && declared > maxBytes) {
      await response.body.cancel().catch(() => undefined);
      throw tooLarge(maxBytes);
    }
    const body = response.body.pipeThrough(countingStream(maxBytes, isStream));
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

function tooLarge(maxBytes: number): Error {
  return new Error(
    `the server's answer is larger than ${maxBytes} bytes${maxBytes >= 1024 * 1024 ? ` (${Math.round(maxBytes / 1024 / 1024)} MiB)` : ''}, the limit of one message; it was not read`,
  );
}

/** Bytes of an SSE event's start kept to find the id of the request it answers. */
const HEAD_BYTES = 256;
const REQUEST_ID = /"id"\s*:\s*(-?\d{1,16}|"(?:[^"\\]|\\.){0,200}")/;

/**
 * Counts bytes (per SSE event when `perEvent`) and ends the stream past `maxBytes`. An SSE event
 * past the limit that answers a request is replaced by a JSON-RPC error answering it (so the
 * call fails at once, naming the limit, instead of waiting for its time limit).
 */
function countingStream(
  maxBytes: number,
  perEvent: boolean,
): TransformStream<Uint8Array, Uint8Array> {
  let count = 0;
  let head = '';
  // The last two bytes seen, to find a blank line (an event's end) across chunks.
  let previous = 0;
  let beforePrevious = 0;
  const decoder = new TextDecoder();
  const overflow = (controller: TransformStreamDefaultController<Uint8Array>) => {
    const id = perEvent ? REQUEST_ID.exec(head)?.[1] : undefined;
    if (id === undefined) {
      controller.error(tooLarge(maxBytes));
      return;
    }
    const answer = {
      jsonrpc: '2.0',
      id: JSON.parse(id) as string | number,
      error: { code: -32600, message: tooLarge(maxBytes).message },
    };
    controller.enqueue(
      new TextEncoder().encode(`\n\nevent: message\ndata: ${JSON.stringify(answer)}\n\n`),
    );
    controller.terminate();
  };
  return new TransformStream({
    transform(chunk, controller) {
      if (!perEvent) {
        count += chunk.length;
        if (count > maxBytes) overflow(controller);
        else controller.enqueue(chunk);
        return;
      }
      let eventStart = 0;
      for (let index = 0; index < chunk.length; index++) {
        const byte = chunk[index] as number;
        if (head.length < HEAD_BYTES && index === eventStart) {
          head += decoder.decode(chunk.subarray(eventStart, eventStart + HEAD_BYTES));
        }
        count += 1;
        if (count > maxBytes) {
          // The events that ended before this one are passed on; this one is not.
          if (eventStart > 0) controller.enqueue(chunk.subarray(0, eventStart));
          overflow(controller);
          return;
        }
        // "\n\n" or "\r\n\r\n" ends an event.
        if (
          byte === 0x0a &&
          (previous === 0x0a || (previous === 0x0d && beforePrevious === 0x0a))
        ) {
          count = 0;
          head = '';
          eventStart = index + 1;
        }
        beforePrevious = previous;
        previous = byte;
      }
      controller.enqueue(chunk);
    },
  });
}

import { ToolErrorCode as Codes, type ToolErrorCode } from '@toolsys/core-tool-registry';

/** An expected failure talking to a device, with the code and fix the tools return for it. */
export class AndroidDeviceError extends Error {
  /** The ToolErrorCode the tool returns. */
  readonly code: ToolErrorCode;
  /** The next step for the model. */
  readonly hint: string;
  /** The argument at fault, when there is one. */
  readonly field: string | undefined;
  /** Structured details (device lists, candidates). */
  readonly details: Record<string, unknown> | undefined;

  constructor(
    code: ToolErrorCode,
    message: string,
    options: { hint: string; field?: string; details?: Record<string, unknown>; cause?: unknown },
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AndroidDeviceError';
    this.code = code;
    this.hint = options.hint;
    this.field = options.field;
    this.details = options.details;
  }
}

/** Turns a failure of the adb server or transport into an {@link AndroidDeviceError}. */
export function transportError(serial: string, error: unknown): AndroidDeviceError {
  if (error instanceof AndroidDeviceError) return error;
  const text = error instanceof Error ? error.message : String(error);
  if (/ECONNREFUSED/.test(text)) {
    return new AndroidDeviceError(
      Codes.UNSUPPORTED,
      'No adb server is running and it could not be reached.',
      {
        hint: 'Start it with `adb start-server` (or set adbServerPort to the port it listens on), then retry.',
        cause: error,
      },
    );
  }
  if (/not found|offline|unauthorized|closed|ECONNRESET|EPIPE/i.test(text)) {
    return new AndroidDeviceError(
      Codes.EXECUTION_FAILED,
      `Device ${serial} is not reachable: ${text.trim()}.`,
      {
        hint: 'Check the cable or network connection (`adb devices` must list it as "device"), then retry the call.',
        cause: error,
      },
    );
  }
  return new AndroidDeviceError(Codes.EXECUTION_FAILED, `adb failed on ${serial}: ${text.trim()}`, {
    hint: 'Retry once; if it fails again, check the device with get_device_info.',
    cause: error,
  });
}

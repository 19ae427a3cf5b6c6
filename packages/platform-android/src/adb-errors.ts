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

/** How a user brings a device back (a clause: "…; connect the device …"). */
export const CONNECT_DEVICE_STEP =
  'connect the device with USB debugging on (or `adb connect HOST:PORT`) until `adb devices` lists it as "device"';

/**
 * The device the tools use when a call names none is not connected: the configured one is not
 * attached, or no device is online. Its message is a lower-case clause (it follows "its device is
 * not connected:" in the result) and its hint says how to bring the device back.
 */
export class DeviceGoneError extends AndroidDeviceError {
  constructor(message: string, details: Record<string, unknown>) {
    super(Codes.UNSUPPORTED, message, {
      hint: `Ask the user to ${CONNECT_DEVICE_STEP}; the next call of an Android tool finds it.`,
      details,
    });
    this.name = 'DeviceGoneError';
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

import {
  type AnyToolDefinition,
  cancelledFailure,
  defineTool,
  failureResult,
  handleOwnerKey,
  handleOwnerOf,
  type ToolContext,
  type ToolDefinition,
  ToolError,
  type ToolReturn,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { AndroidDeviceError, DeviceGoneError } from '../adb-errors.js';
import type { AndroidDevice } from '../android-device.js';
import type { AndroidToolSession } from '../android-session.js';

/** The optional `serial` argument every device tool takes. */
export const serialField = z
  .string()
  .min(1)
  .max(200)
  .optional()
  .describe(
    'adb serial of the device to use. Default: the configured device, else the only one attached.',
  );

/** Android package names (`com.example.app`). */
export const packageField = z
  .string()
  .regex(/^[A-Za-z][\w]*(\.[A-Za-z_][\w]*)+$/, 'expected a package name such as com.example.app')
  .describe('Android package name, e.g. com.android.settings (app_list shows them).');

/** What a device tool's handler receives besides its arguments. */
export interface DeviceToolContext extends ToolContext {
  /** The selected device. */
  readonly device: AndroidDevice;
  /** The shared session (telemetry, UI snapshots). */
  readonly session: AndroidToolSession;
  /**
   * Whose snapshots and cut pages the call reads and keeps (`handleOwnerKey`: the principal in its
   * client session): another principal never reaches them, even with the same client session id.
   */
  readonly owner: string;
}

/** Turns an error of the device layer into the result the model reads; rethrows anything else. */
export function deviceFailure(error: unknown): ToolReturn {
  if (error instanceof AndroidDeviceError) {
    return failureResult(error.code, error.message, {
      hint: error.hint,
      ...(error.field === undefined ? {} : { field: error.field }),
      ...(error.details === undefined ? {} : { details: error.details }),
    });
  }
  if (error instanceof ToolError) {
    const { cause: _cause, ...options } = error.options;
    return failureResult(error.code, error.message, options);
  }
  throw error;
}

/** Says which device outputs were cut at their byte bound, for the end of a result. */
function cutNote(device: AndroidDevice | undefined): string | undefined {
  const cut = device?.cutOutputs ?? [];
  if (cut.length === 0) return undefined;
  const described = cut
    .map(({ command, maxBytes }) => `\`${command.split(' ')[0]}\` past ${formatBytes(maxBytes)}`)
    .join(', ');
  return `[device output cut: the device sent more than the bound (${described}); reading stopped there, so this result covers only the start of it.]`;
}

function formatBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

/** The result with a note (why a call ran through adb instead of Appium) added at its end. */
function withNote(result: ToolReturn, note: string | undefined): ToolReturn {
  if (note === undefined) return result;
  if (typeof result === 'string') return `${result}\n${note}`;
  if (result.ok) return { ...result, content: `${result.content}\n${note}` };
  return { ...result, error: { ...result.error, message: `${result.error.message} ${note}` } };
}

/** The tags every device tool carries, before its own. */
const DEVICE_TOOL_TAGS = ['android', 'adb'];

/**
 * Declares a device tool: tags it `android` and `adb` (before its own tags), selects the device
 * once (the `serial` argument, the configured one, or the only one attached) before the handler
 * runs, and turns device errors into results.
 */
export function defineDeviceTool<TArgs extends { serial?: string | undefined }>(
  session: AndroidToolSession,
  definition: Omit<ToolDefinition<TArgs>, 'execute'> & {
    execute(args: TArgs, context: DeviceToolContext): Promise<ToolReturn>;
  },
): AnyToolDefinition {
  return defineTool<TArgs>({
    ...definition,
    metadata: {
      ...definition.metadata,
      tags: [...DEVICE_TOOL_TAGS, ...(definition.metadata.tags ?? [])],
    },
    async execute(args, context) {
      if (context.signal.aborted) return cancelledFailure(context.signal);
      let serial: string | undefined;
      let selected: AndroidDevice | undefined;
      try {
        const device = await session.manager.select(args.serial, context.signal);
        if (args.serial === undefined) session.away.back();
        selected = device;
        serial = device.serial;
        session.takeFallbackNote(serial);
        const result = await definition.execute(args, {
          ...context,
          device,
          session,
          owner: handleOwnerKey(handleOwnerOf(context)),
          emit: context.emit,
          confirm: context.confirm,
        });
        return withNote(withNote(result, session.takeFallbackNote(serial)), cutNote(selected));
      } catch (error) {
        if (context.signal.aborted) return cancelledFailure(context.signal);
        if (error instanceof DeviceGoneError) return session.away.gone(definition.id, error);
        const note = serial === undefined ? undefined : session.takeFallbackNote(serial);
        return withNote(withNote(deviceFailure(error), note), cutNote(selected));
      }
    },
  });
}

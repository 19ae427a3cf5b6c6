import {
  type AnyToolDefinition,
  cleanUntrustedText,
  failureResult,
  markUntrusted,
  RunPolicies,
  successResult,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
  untrustedMarkers,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import type { AndroidDevice } from '../android-device.js';
import type { AndroidToolSession } from '../android-session.js';
import { parseStreamVolume, parseVolumeCommand, type StreamVolume } from '../parsers/audio.js';
import {
  canTakeMediaCommands,
  type MediaSessionInfo,
  parseMediaSessions,
} from '../parsers/media-session.js';
import { quoteShell } from '../shell-quote.js';
import { defineDeviceTool, serialField } from './device-tool.js';

const MEDIA_KEYS = {
  play: 'KEYCODE_MEDIA_PLAY',
  pause: 'KEYCODE_MEDIA_PAUSE',
  toggle: 'KEYCODE_MEDIA_PLAY_PAUSE',
  stop: 'KEYCODE_MEDIA_STOP',
  next: 'KEYCODE_MEDIA_NEXT',
  previous: 'KEYCODE_MEDIA_PREVIOUS',
  volume_up: 'KEYCODE_VOLUME_UP',
  volume_down: 'KEYCODE_VOLUME_DOWN',
  mute: 'KEYCODE_VOLUME_MUTE',
} as const;

/** The package of the Clipper app (`ca.zgrs.clipper`) the clipboard path uses. */
export const CLIPPER_PACKAGE = 'ca.zgrs.clipper';

/** Reads the clipboard through Clipper's `clipper.get` broadcast; undefined when Clipper is missing. */
export async function readClipboard(
  device: AndroidDevice,
  signal: AbortSignal,
): Promise<string | undefined> {
  const output = await device.shell('am broadcast -a clipper.get', { signal });
  const match = /Broadcast completed: result=-1, data="([\s\S]*)"\s*$/.exec(output);
  return match ? (match[1] as string) : undefined;
}

/** Sets the clipboard through Clipper's `clipper.set` broadcast; false when Clipper is missing. */
export async function writeClipboard(
  device: AndroidDevice,
  text: string,
  signal: AbortSignal,
): Promise<boolean> {
  const output = await device.shell(`am broadcast -a clipper.set -e text ${quoteShell(text)}`, {
    signal,
  });
  return /Broadcast completed: result=-1/.test(output);
}

/**
 * Reads the music stream volume. `VolumeCtrl` answers in a few lines: `cmd media_session volume`
 * from Android 11, `media volume` up to Android 10 (run when the first fails). `dumpsys audio`
 * prints hundreds of KB on real devices, so it is read only when `allowFullDump` is set and
 * neither command answers.
 */
export async function readMusicVolume(
  device: AndroidDevice,
  signal: AbortSignal,
  options: { allowFullDump: boolean },
): Promise<StreamVolume | undefined> {
  const command = parseVolumeCommand(
    await device.shell(
      'cmd media_session volume --stream 3 --get 2>/dev/null || media volume --stream 3 --get 2>/dev/null',
      { signal },
    ),
  );
  if (command !== undefined || !options.allowFullDump) return command;
  return parseStreamVolume(await device.shell('dumpsys audio', { signal }));
}

function nothingPlaying(sessions: readonly MediaSessionInfo[], action: string): string {
  const holders = [...new Set(sessions.map((session) => session.packageName))];
  const why =
    holders.length === 0
      ? 'no app has a media session'
      : `only ${holders.join(', ')} ${holders.length === 1 ? 'has a media session' : 'have media sessions'}, inactive and without a playback state, so it takes no media commands`;
  return `Nothing is playing: ${why}. ${action} was not sent.`;
}

function clipperMissing() {
  return failureResult(
    ToolErrorCode.UNSUPPORTED,
    'The clipboard cannot be reached over adb on this device: the Clipper helper app is not installed.',
    {
      hint: `Stock Android gives the shell no clipboard access. Install Clipper (${CLIPPER_PACKAGE}) with app_install, then retry; to type text use input_text instead.`,
    },
  );
}

/**
 * The risk of one `clipboard` call: replacing the clipboard is MEDIUM (what is pasted next reaches
 * any app, as a tap or typed text does), reading it LOW. The kernel's risk gate evaluates it, so
 * the deployment's policy (allow, ask, deny) and the user's grants apply to a write.
 */
export function clipboardRisk(rawArgs: unknown): 'LOW' | 'MEDIUM' {
  const action =
    typeof rawArgs === 'object' && rawArgs !== null
      ? (rawArgs as { action?: unknown }).action
      : undefined;
  return action === 'get' ? 'LOW' : 'MEDIUM';
}

/** `control_media` and `clipboard`. */
export function createMediaTools(session: AndroidToolSession): AnyToolDefinition[] {
  return [
    defineDeviceTool(session, {
      id: 'control_media',
      description:
        "Controls media playback on the device like the headset buttons do (play, pause, toggle, stop, next, previous) or the music volume (volume_up, volume_down, mute), then reports the active media session's state and track.",
      inputSchema: ToolSchema.object({
        action: z
          .enum([
            'play',
            'pause',
            'toggle',
            'stop',
            'next',
            'previous',
            'volume_up',
            'volume_down',
            'mute',
          ])
          .describe('What to press.'),
        serial: serialField,
      }),
      metadata: {
        category: 'media',
        // Playback and volume change what the user hears, as a tap does.
        risk: 'MEDIUM',
        tags: ['android', 'adb', 'media'],
        annotations: ToolHints.mutating,
      },
      runPolicy: RunPolicies.mutating,
      async execute(args, { device, signal }) {
        const isVolumeAction = args.action.startsWith('volume') || args.action === 'mute';
        const before = parseMediaSessions(await device.shell('dumpsys media_session', { signal }));
        if (!isVolumeAction && !before.some(canTakeMediaCommands)) {
          return failureResult(ToolErrorCode.NOT_FOUND, nothingPlaying(before, args.action), {
            hint: 'Start playback in a media app first (app_launch, then ui_tap its play button).',
          });
        }
        await device.shell(`input keyevent ${MEDIA_KEYS[args.action]}`, { signal });
        const after = parseMediaSessions(await device.shell('dumpsys media_session', { signal }));
        const volume = (await readMusicVolume(device, signal, { allowFullDump: isVolumeAction }))
          ?.volume;
        const controllable = after.filter(canTakeMediaCommands);
        const session =
          controllable.find((candidate) => candidate.active && candidate.stateCode !== 0) ??
          controllable.find((candidate) => candidate.stateCode !== 0) ??
          controllable[0];
        const state = session
          ? `${session.packageName} is ${session.state}${session.description ? `: ${session.description}` : ''}`
          : 'nothing is playing (no app has a media session that takes media commands)';
        return successResult(
          `Sent ${args.action}. ${state}.${volume === undefined ? '' : ` Music volume ${volume}.`}`,
          {
            data: {
              action: args.action,
              sessions: after,
              ...(volume === undefined ? {} : { volume }),
            },
          },
        );
      },
    }),
    defineDeviceTool(session, {
      id: 'clipboard',
      description: `Reads ("get") or replaces ("set") the device clipboard. "get" is LOW risk; "set" is MEDIUM (what is pasted next can reach any app), so it asks the user first unless the deployment's policy or a grant decides. Needs the Clipper helper app (${CLIPPER_PACKAGE}) because stock Android gives adb no clipboard access; without it the tool says so. To type into a field, use input_text.`,
      inputSchema: ToolSchema.object({
        action: z.enum(['get', 'set']).describe('"get" the clipboard text, or "set" it to "text".'),
        text: z.string().max(10_000).optional().describe('The new clipboard text (set only).'),
        serial: serialField,
      }),
      metadata: {
        category: 'system',
        risk: 'LOW',
        tags: ['android', 'adb', 'clipboard'],
        annotations: { ...ToolHints.mutating, idempotentHint: true, sensitiveAction: true },
      },
      riskOf: clipboardRisk,
      runPolicy: RunPolicies.quickRead,
      async execute(args, context) {
        const { device, signal } = context;
        if (args.action === 'set') {
          if (args.text === undefined)
            return failureResult(ToolErrorCode.INVALID_ARGUMENT, 'text: required for "set"', {
              field: 'text',
            });
          if (!(await writeClipboard(device, args.text, signal))) return clipperMissing();
          return successResult(`Clipboard set (${[...args.text].length} characters).`);
        }
        const text = await readClipboard(device, signal);
        if (text === undefined) return clipperMissing();
        if (text === '') return successResult('The clipboard is empty.', { data: { text } });
        // Any app on the device can write the clipboard: its text is cleaned and marked.
        const cleaned = cleanUntrustedText(text);
        const removed =
          cleaned.invisibleRemoved + cleaned.commentsRemoved > 0
            ? `\nRemoved ${cleaned.invisibleRemoved} invisible character${cleaned.invisibleRemoved === 1 ? '' : 's'} and ${cleaned.commentsRemoved} hidden comment${cleaned.commentsRemoved === 1 ? '' : 's'} (possible hidden instructions).`
            : '';
        return successResult(
          `Clipboard (${[...cleaned.text].length} characters):\n${untrustedMarkers('device-screen').notice}\n${markUntrusted(cleaned.text, 'device-screen')}${removed}`,
          { data: { text: cleaned.text } },
        );
      },
    }),
  ];
}

import {
  type AnyToolDefinition,
  failureResult,
  RunPolicies,
  successResult,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import type { AndroidDevice } from '../../android-device.js';
import type { AndroidToolSession } from '../../android-session.js';
import { parseStreamVolume, parseVolumeCommand, type StreamVolume } from '../../parsers/audio.js';
import {
  canTakeMediaCommands,
  type MediaSessionInfo,
  parseMediaSessions,
} from '../../parsers/media-session.js';
import { defineDeviceTool, serialField } from '../device-tool.js';

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

/** The `control_media` tool. */
export function createControlMediaTool(session: AndroidToolSession): AnyToolDefinition {
  return defineDeviceTool(session, {
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
      tags: ['media'],
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
  });
}

// Media commands: `cmd media_session` and the `volume` subcommand of cmds/media.
import type { SimDevice } from '../sim-device.js';
import { type CommandOutput, fail, ok } from './command-output.js';

/**
 * `cmd media_session` (`MediaShellCommand`, Android 11+); only its `volume` subcommand. Before
 * Android 11 the service has no shell command, and `Binder.onShellCommand` says so.
 */
export function cmdMediaSession(device: SimDevice, args: string[]): CommandOutput {
  if (device.sdk() < 30) return fail('No shell command implementation.\n', 255);
  if (args[0] !== 'volume') return fail(`Error: unknown command '${args[0] ?? ''}'\n`, 255);
  return volumeCtrl(device, args.slice(1), '[V]');
}

/**
 * `VolumeCtrl.run` for the music stream (stream 3): `--stream N`, `--get`, `--set INDEX`,
 * `--adj raise|same|lower`, each option logged as `LOG_V` (`[V]` in `cmd media_session`, `[v]` in
 * the older `media` command) before the read-back `volume is N in range [0..15]`.
 */
export function volumeCtrl(device: SimDevice, args: string[], logV: string): CommandOutput {
  const lines: string[] = [];
  let stream = 3;
  let get = false;
  let set: number | undefined;
  let adjust: string | undefined;
  for (let index = 0; index < args.length; index++) {
    const option = args[index];
    if (option === '--get') {
      get = true;
      lines.push(`${logV} will get volume`);
    } else if (option === '--stream') {
      stream = Number(args[++index]);
      lines.push(
        `${logV} will control stream=${stream} (${stream === 3 ? 'STREAM_MUSIC' : 'invalid stream'})`,
      );
    } else if (option === '--set') {
      set = Number(args[++index]);
      lines.push(`${logV} will set volume to index=${set}`);
    } else if (option === '--adj') {
      adjust = args[++index];
      lines.push(`${logV} will adjust volume`);
    } else if (option !== '--show') {
      return fail(`Error: java.lang.IllegalArgumentException: Unknown argument ${option}\n`, 255);
    }
  }
  lines.push(`${logV} Connecting to AudioService`);
  if (stream !== 3) return fail('Error: the simulator has only the music stream (3)\n', 255);
  if (set !== undefined) {
    if (!Number.isInteger(set) || set < 0 || set > 15)
      return fail(`Error: invalid volume index ${set} for stream 3 (should be in [0..15])\n`, 255);
    device.state.volume = set;
  } else if (adjust === 'raise') device.state.volume = Math.min(15, device.state.volume + 1);
  else if (adjust === 'lower') device.state.volume = Math.max(0, device.state.volume - 1);
  if (get) lines.push(`${logV} volume is ${device.state.volume} in range [0..15]`);
  return ok(`${lines.join('\n')}\n`);
}

/** The volume of one audio stream, from `dumpsys audio`. */
export interface StreamVolume {
  /** Volume index on the device that plays the stream now. */
  readonly volume: number;
  /** Lowest index, when printed. */
  readonly min?: number;
  /** Highest index, when printed. */
  readonly max?: number;
  /** Whether the stream is muted, when printed (`Muted:`; Android 7 prints a `Mute count:`). */
  readonly muted?: boolean;
  /** The output device the volume is for (`speaker`, `hdmi`, …), when printed. */
  readonly device?: string;
}

/**
 * Reads one stream of the `Stream volumes (device: index)` list of `dumpsys audio`
 * (`AudioService.dumpStreamStates`): the `- STREAM_MUSIC:` block with `Min:`, `Max:`, the
 * per-device `Current: 2 (speaker): 11, …` indexes and `Devices: speaker` (printed
 * `speaker(2)` from Android 12). The volume is `streamVolume:` where printed (Android 11+), else
 * the index of the first listed device, else the default device's. Undefined when the block is
 * missing; a stream aliased to another (`- STREAM_TTS (aliased to: STREAM_MUSIC):`) is its own
 * block and never read for that other stream.
 */
export function parseStreamVolume(
  output: string,
  stream = 'STREAM_MUSIC',
): StreamVolume | undefined {
  const lines = output.split('\n').map((line) => line.replace(/\r$/, ''));
  const start = lines.findIndex((line) => line.trim() === `- ${stream}:`);
  if (start < 0) return undefined;
  const block: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === '' || line.startsWith('- ')) break;
    block.push(line.trim());
  }
  const field = (name: string): string | undefined =>
    block
      .find((line) => line.startsWith(name))
      ?.slice(name.length)
      .trim();
  const indexes = new Map<string, number>();
  for (const match of (field('Current:') ?? '').matchAll(/[0-9a-f]+ \(([\w-]+)\): (\d+)/g)) {
    indexes.set(match[1] as string, Number(match[2]));
  }
  const device = field('Devices:')
    ?.split(/\s+/)[0]
    ?.replace(/\([0-9a-f]+\)$/, '');
  const streamVolume = field('streamVolume:');
  const volume =
    streamVolume !== undefined
      ? Number(streamVolume)
      : ((device === undefined ? undefined : indexes.get(device)) ?? indexes.get('default'));
  if (volume === undefined || Number.isNaN(volume)) return undefined;
  const result: { -readonly [K in keyof StreamVolume]: StreamVolume[K] } = { volume };
  const min = field('Min:');
  if (min !== undefined) result.min = Number(min);
  const max = field('Max:');
  if (max !== undefined) result.max = Number(max);
  const muted = field('Muted:');
  if (muted === 'true' || muted === 'false') result.muted = muted === 'true';
  if (device !== undefined && device !== '') result.device = device;
  return result;
}

/**
 * Reads the `volume is N in range [MIN..MAX]` line that `VolumeCtrl` prints for `--get`: in
 * `cmd media_session volume` from Android 11 (`MediaShellCommand`, logged as `[V]`) and in the
 * `media volume` command up to Android 10 (`cmds/media`, logged as `[v]`). Undefined when the
 * output has no such line (the command is missing or failed).
 */
export function parseVolumeCommand(output: string): StreamVolume | undefined {
  const match = /^\[[vV]\] volume is (\d+) in range \[(\d+)\.\.(\d+)\]\s*$/m.exec(output);
  if (!match) return undefined;
  return { volume: Number(match[1]), min: Number(match[2]), max: Number(match[3]) };
}

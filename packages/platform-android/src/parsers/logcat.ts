/** One logcat line in threadtime format. */
export interface LogcatEntry {
  /** `MM-DD HH:MM:SS.mmm` as printed. */
  readonly time: string;
  readonly pid: number;
  readonly tid: number;
  readonly level: 'V' | 'D' | 'I' | 'W' | 'E' | 'F' | 'A';
  readonly tag: string;
  readonly message: string;
}

const THREADTIME =
  /^(\d\d-\d\d \d\d:\d\d:\d\d\.\d{3})\s+(\d+)\s+(\d+)\s+([VDIWEFA])\s+(.*?)\s*: (.*)$/;

/** Parses `logcat -v threadtime` output; `--------- beginning of` banners and unparsable lines are skipped. */
export function parseThreadtime(output: string): LogcatEntry[] {
  const entries: LogcatEntry[] = [];
  for (const line of output.split('\n')) {
    const match = THREADTIME.exec(line.replace(/\r$/, ''));
    if (!match) continue;
    entries.push({
      time: match[1] as string,
      pid: Number(match[2]),
      tid: Number(match[3]),
      level: match[4] as LogcatEntry['level'],
      tag: match[5] as string,
      message: match[6] as string,
    });
  }
  return entries;
}

const LEVEL_ORDER = ['V', 'D', 'I', 'W', 'E', 'F', 'A'] as const;

/** Whether `level` is at least `minimum` (V < D < I < W < E < F/A). */
export function isAtLeastLevel(
  level: LogcatEntry['level'],
  minimum: LogcatEntry['level'],
): boolean {
  return LEVEL_ORDER.indexOf(level) >= LEVEL_ORDER.indexOf(minimum);
}

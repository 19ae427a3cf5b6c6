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

/** The fixed head of a threadtime line: time, pid, tid and level (the tag and message follow). */
const THREADTIME_HEAD =
  /^(\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) {1,20}(\d{1,10}) {1,20}(\d{1,10}) {1,20}([VDIWEFA]) {1,20}/;

/**
 * Parses `logcat -v threadtime` output; `--------- beginning of` banners and unparsable lines are
 * skipped. The tag ends at the first `: ` (logprint.cpp pads it with spaces, which are dropped);
 * found by `indexOf`, so a device's line of any length parses in linear time.
 */
export function parseThreadtime(output: string): LogcatEntry[] {
  const entries: LogcatEntry[] = [];
  for (const raw of output.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const head = THREADTIME_HEAD.exec(line);
    if (!head) continue;
    const rest = line.slice(head[0].length);
    const colon = rest.indexOf(': ');
    if (colon < 0) continue;
    entries.push({
      time: head[1] as string,
      pid: Number(head[2]),
      tid: Number(head[3]),
      level: head[4] as LogcatEntry['level'],
      tag: rest.slice(0, colon).trimEnd(),
      message: rest.slice(colon + 2),
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

// The time, id and name formats the sim's dumps print.
import type { SimLogEntry } from '../device-model.js';

function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}

/** `MM-DD HH:MM:SS.mmm` in UTC, as logcat's threadtime format prints it (device time zone UTC). */
export function formatLogTime(time: number): string {
  const date = new Date(time);
  return `${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}.${pad(date.getUTCMilliseconds(), 3)}`;
}

/** `YYYY-MM-DD HH:MM:SS` in UTC, as `dumpsys package` prints install times. */
export function formatDumpsysTime(time: number): string {
  const date = new Date(time);
  return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
}

/** A threadtime logcat line (logprint.cpp: `%s %5d %5d %c %-8s: %s`). */
export function formatThreadtime(entry: SimLogEntry): string {
  return `${formatLogTime(entry.time)} ${String(entry.pid).padStart(5)} ${String(entry.tid).padStart(5)} ${entry.level} ${entry.tag.padEnd(8)}: ${entry.message}`;
}

/** A stable 7-digit hex id for a seed (FNV-1a), as dumps print record and window ids. */
export function hexId(seed: string): string {
  let hash = 0x811c9dc5;
  for (const char of seed) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
  return hash.toString(16).padStart(7, '0').slice(0, 7);
}

/** `package/.Activity` when the activity is inside the package, else `package/full.Activity`. */
export function shortActivity(packageName: string, activity: string): string {
  return activity.startsWith(`${packageName}.`)
    ? `${packageName}/${activity.slice(packageName.length)}`
    : `${packageName}/${activity}`;
}

/** The time of a logcat `-t`/`-T` argument (`MM-DD HH:MM:SS.mmm`, year of `now`), if it is one. */
export function parseLogTime(value: string, now: number): number | undefined {
  const match = /^(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{3})$/.exec(value);
  if (!match) return undefined;
  const year = new Date(now).getUTCFullYear();
  const [, month, day, hours, minutes, seconds, millis] = match.map(Number) as number[];
  return Date.UTC(year, (month as number) - 1, day, hours, minutes, seconds, millis);
}

/** A last known location from `dumpsys location`. */
export interface DeviceLocation {
  readonly provider: string;
  readonly latitude: number;
  readonly longitude: number;
  /** Horizontal accuracy in metres, when printed (`hAcc=` or the older `acc=`). */
  readonly accuracyMeters?: number;
  readonly altitude?: number;
}

/**
 * Parses the `Location[PROVIDER LAT,LON hAcc=… alt=…]` records of `dumpsys location` (both the
 * `Last Known Locations:` list of Android ≤ 11 and the `last location=` lines of Android 12+).
 * The first fused or gps fix wins, else the first one printed.
 */
export function parseLocations(output: string): DeviceLocation[] {
  const locations: DeviceLocation[] = [];
  for (const match of output.matchAll(
    /Location\[(\w+) (-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?)([^\]]*)\]/g,
  )) {
    const rest = match[4] ?? '';
    const accuracy = /\b(?:hAcc|acc)=(\d+(?:\.\d+)?)/.exec(rest)?.[1];
    const altitude = /\balt=(-?\d+(?:\.\d+)?)/.exec(rest)?.[1];
    const location: { -readonly [K in keyof DeviceLocation]: DeviceLocation[K] } = {
      provider: match[1] as string,
      latitude: Number(match[2]),
      longitude: Number(match[3]),
    };
    if (accuracy !== undefined) location.accuracyMeters = Number(accuracy);
    if (altitude !== undefined) location.altitude = Number(altitude);
    locations.push(location);
  }
  return locations;
}

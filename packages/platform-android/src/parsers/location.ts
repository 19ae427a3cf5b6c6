/** A last known location from `dumpsys location`. */
export interface DeviceLocation {
  readonly provider: string;
  readonly latitude: number;
  readonly longitude: number;
  /** Horizontal accuracy in metres, when printed (`hAcc=` or the older `acc=`). */
  readonly accuracyMeters?: number;
  readonly altitude?: number;
}

/** A number as `Location.toString` prints it, with a decimal point or, in some locales, a comma. */
function readNumber(printed: string): number {
  return Number(printed.replace(',', '.'));
}

/**
 * Reads `LAT,LON` as printed. `Location.toString` formats them with `String.format(" %.6f,%.6f")` in
 * the device's locale, so a German or French device prints `52,520008,13,404954`: four groups, the
 * decimals six digits each. Undefined for anything else, or for coordinates out of range.
 */
function readCoordinates(printed: string): [number, number] | undefined {
  const point = /^(-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?)$/.exec(printed);
  const comma = /^(-?\d+),(\d{6}),(-?\d+),(\d{6})$/.exec(printed);
  const [latitude, longitude] = point
    ? [Number(point[1]), Number(point[2])]
    : comma
      ? [Number(`${comma[1]}.${comma[2]}`), Number(`${comma[3]}.${comma[4]}`)]
      : [Number.NaN, Number.NaN];
  if (!(Math.abs(latitude) <= 90 && Math.abs(longitude) <= 180)) return undefined;
  return [latitude, longitude];
}

/**
 * Parses the `Location[PROVIDER LAT,LON hAcc=… alt=…]` records of `dumpsys location` (both the
 * `Last Known Locations:` list of Android ≤ 11 and the `last location=` lines of Android 12+),
 * in the order printed, with decimal commas read as points. Records whose coordinates cannot be
 * read are left out.
 */
export function parseLocations(output: string): DeviceLocation[] {
  const locations: DeviceLocation[] = [];
  for (const match of output.matchAll(/Location\[(\w+) ([^\s\]]+)([^\]]*)\]/g)) {
    const coordinates = readCoordinates(match[2] as string);
    if (!coordinates) continue;
    const rest = match[3] ?? '';
    const accuracy = /\b(?:hAcc|acc)=(\d+(?:[.,]\d+)?)/.exec(rest)?.[1];
    const altitude = /\balt=(-?\d+(?:[.,]\d+)?)/.exec(rest)?.[1];
    const location: { -readonly [K in keyof DeviceLocation]: DeviceLocation[K] } = {
      provider: match[1] as string,
      latitude: coordinates[0],
      longitude: coordinates[1],
    };
    if (accuracy !== undefined) location.accuracyMeters = readNumber(accuracy);
    if (altitude !== undefined) location.altitude = readNumber(altitude);
    locations.push(location);
  }
  return locations;
}

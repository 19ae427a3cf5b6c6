/**
 * Public packages whose README is not written yet, with the reason. A test fails as soon as such a
 * README exists, so an entry cannot outlive its reason.
 */
export const readmesPending: ReadonlyMap<string, string> = new Map([
  ['@toolsys/host', 'the host README (every command, flag and config key) is written separately'],
]);

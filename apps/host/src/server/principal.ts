import type { CallPrincipal } from '@toolsys/core-tool-registry';

/** Who is calling: an OAuth subject, a named static token, or the local user (the kernel's type). */
export type Principal = CallPrincipal;

/** The caller on stdio and on loopback without a token. */
export const LOCAL_PRINCIPAL: Principal = Object.freeze({
  id: 'local',
  kind: 'local',
  scopes: Object.freeze([]) as readonly string[],
});

/** A key naming one principal: equal for the same caller, different across kinds (the kernel's). */
export { principalKey } from '@toolsys/core-tool-registry';

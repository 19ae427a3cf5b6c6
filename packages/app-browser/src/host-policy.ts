import { canonicalHost } from '@toolsys/platform';

/** Options for {@link createHostPolicy}. */
export interface HostPolicyOptions {
  /** When given, only these hosts are reachable (`example.com`, `*.example.com`, `127.0.0.1`). */
  readonly allowedHosts?: readonly string[];
  /** Hosts never reachable, same patterns; checked before the allow list. */
  readonly blockedHosts?: readonly string[];
}

/** Why a host is refused, or undefined when it may be reached. */
export type HostPolicy = (host: string) => string | undefined;

/**
 * Builds the deployment's host allow / block list check. A pattern is a host name or IP, or
 * `*.domain` for every subdomain of a domain (not the domain itself). Case-insensitive.
 */
export function createHostPolicy(options: HostPolicyOptions): HostPolicy {
  const blocked = (options.blockedHosts ?? []).map(normalise);
  const allowed = options.allowedHosts?.map(normalise);
  return (rawHost) => {
    const host = normalise(rawHost);
    if (blocked.some((pattern) => matches(pattern, host))) {
      return `${host} is on the deployment's list of blocked hosts`;
    }
    if (allowed && !allowed.some((pattern) => matches(pattern, host))) {
      return `${host} is not on the deployment's list of allowed hosts`;
    }
    return undefined;
  };
}

/** One spelling per host (`[::ffff:127.0.0.1]`, `2130706433` and `127.0.0.1.` are `127.0.0.1`). */
function normalise(host: string): string {
  const trimmed = host.trim();
  return trimmed.startsWith('*.') ? `*.${canonicalHost(trimmed.slice(2))}` : canonicalHost(trimmed);
}

function matches(pattern: string, host: string): boolean {
  if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1)) && host !== pattern.slice(2);
  return pattern === host;
}

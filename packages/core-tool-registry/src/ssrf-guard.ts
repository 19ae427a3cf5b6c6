import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { ToolError, ToolErrorCode } from './tool-error.js';

/** One address a host name resolves to. */
export interface ResolvedAddress {
  /** The IP address, IPv4 dotted or IPv6 text. */
  readonly address: string;
  /** 4 or 6. */
  readonly family: 4 | 6;
}

/** Resolves a host name to every address it has. */
export type HostResolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** Options for {@link SsrfGuard}. */
export interface SsrfGuardOptions {
  /**
   * Which non-public destinations are allowed. `false` (default) refuses loopback, private,
   * link-local, unique-local, carrier-grade NAT, multicast, reserved and cloud-metadata addresses.
   * `true` allows all of them except the cloud-metadata endpoints (169.254.169.254,
   * fd00:ec2::254, 100.100.100.200), which are only reachable when listed explicitly. A list
   * allows exactly the host names, IP addresses and CIDR ranges it names (`"127.0.0.1"`,
   * `"10.0.0.0/8"`, `"searx.internal"`).
   */
  allowPrivateNetwork?: boolean | readonly string[];
  /** Resolves host names; `node:dns` lookup (all addresses) by default. */
  resolveHost?: HostResolver;
}

/** Addresses of cloud instance-metadata services: refused even when private networks are allowed. */
const METADATA_ADDRESSES = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200']);

const ALLOWED_PROTOCOLS = new Set(['http:', 'https:']);

type ParsedAddress = ipaddr.IPv4 | ipaddr.IPv6;

interface AllowRule {
  readonly kind: 'host' | 'range';
  readonly host?: string;
  readonly range?: [ParsedAddress, number];
}

const defaultResolver: HostResolver = async (hostname) => {
  const addresses = await dnsLookup(hostname, { all: true, verbatim: true });
  return addresses.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

/**
 * Refuses requests to loopback, private, link-local and cloud-metadata addresses unless the
 * deployment allows them. Checks the literal host, every resolved address, and (through
 * {@link SsrfGuard.lookup}) the very address a socket connects to, so a DNS answer cannot change
 * between the check and the connection.
 */
export class SsrfGuard {
  readonly #allowAll: boolean;
  readonly #rules: readonly AllowRule[];
  readonly #resolveHost: HostResolver;

  constructor(options: SsrfGuardOptions = {}) {
    const allow = options.allowPrivateNetwork ?? false;
    this.#allowAll = allow === true;
    this.#rules = Array.isArray(allow) ? allow.map(parseRule) : [];
    this.#resolveHost = options.resolveHost ?? defaultResolver;
  }

  /**
   * Checks a URL before any traffic: the scheme must be http or https and a literal IP host must
   * be allowed. Throws a PERMISSION_DENIED {@link ToolError} (or INVALID_ARGUMENT for a bad URL).
   */
  checkUrl(url: URL, field = 'url'): void {
    if (!ALLOWED_PROTOCOLS.has(url.protocol)) {
      throw new ToolError(
        ToolErrorCode.INVALID_ARGUMENT,
        `${field}: only http and https URLs are supported, got "${url.protocol}"`,
        { field, hint: 'Use an http:// or https:// URL.' },
      );
    }
    if (url.username || url.password) {
      throw new ToolError(
        ToolErrorCode.INVALID_ARGUMENT,
        `${field}: credentials inside the URL are not accepted`,
        { field, hint: 'Send credentials in an Authorization header instead.' },
      );
    }
    const host = stripBrackets(url.hostname);
    if (ipaddr.isValid(host)) this.assertAddressAllowed(host, host);
  }

  /** Why an address is refused for this host name, or undefined when it is allowed. */
  refusalReason(address: string, hostname: string): string | undefined {
    let parsed: ParsedAddress;
    try {
      parsed = normalise(ipaddr.parse(address));
    } catch {
      return `"${address}" is not an IP address`;
    }
    const isMetadata = METADATA_ADDRESSES.has(parsed.toString());
    const range = parsed.range();
    if (!isMetadata && range === 'unicast') return undefined;
    if (this.#isListed(parsed, hostname)) return undefined;
    if (this.#allowAll && !isMetadata) return undefined;
    return isMetadata ? 'a cloud metadata address' : `a ${describeRange(range)} address`;
  }

  /** Throws PERMISSION_DENIED when the address is refused. */
  assertAddressAllowed(address: string, hostname: string): void {
    const reason = this.refusalReason(address, hostname);
    if (reason === undefined) return;
    const shown = hostname === address ? address : `${hostname} (${address})`;
    throw new ToolError(
      ToolErrorCode.PERMISSION_DENIED,
      `Refused to connect to ${shown}: it is ${reason}, and this deployment does not allow requests to private or internal networks.`,
      {
        hint: 'Use a public URL; do not retry with another internal address. Only an operator can allow internal hosts (the allowPrivateNetwork option of the network tools).',
        details: { host: hostname, blocked: true },
      },
    );
  }

  /**
   * Resolves a host name and checks every address it has; refuses the host when any of them is
   * blocked. Returns the checked addresses (literal IPs are returned as they are).
   */
  async resolve(hostname: string): Promise<readonly ResolvedAddress[]> {
    const host = stripBrackets(hostname);
    if (ipaddr.isValid(host)) {
      this.assertAddressAllowed(host, host);
      return [{ address: host, family: ipaddr.parse(host).kind() === 'ipv6' ? 6 : 4 }];
    }
    let addresses: readonly ResolvedAddress[];
    try {
      addresses = await this.#resolveHost(host);
    } catch (error) {
      throw new ToolError(
        ToolErrorCode.EXECUTION_FAILED,
        `Cannot resolve host "${host}": ${(error as NodeJS.ErrnoException).code ?? 'lookup failed'}`,
        { hint: 'Check the host name in the URL.', retryable: false, cause: error },
      );
    }
    if (addresses.length === 0) {
      throw new ToolError(ToolErrorCode.EXECUTION_FAILED, `Host "${host}" has no address.`, {
        retryable: false,
        hint: 'Check the host name in the URL.',
      });
    }
    for (const { address } of addresses) this.assertAddressAllowed(address, host);
    return addresses;
  }

  /**
   * A `lookup` for `http.request` / `net.connect`: resolves through {@link SsrfGuard.resolve}, so
   * the socket connects only to an address that passed the check.
   */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.resolve(hostname).then(
      (addresses) => {
        const wanted = options.family === 4 || options.family === 6 ? options.family : undefined;
        const usable = wanted ? addresses.filter((entry) => entry.family === wanted) : addresses;
        const chosen = usable.length > 0 ? usable : addresses;
        if (options.all) {
          (callback as unknown as (error: null, addresses: ResolvedAddress[]) => void)(null, [
            ...chosen,
          ]);
          return;
        }
        const first = chosen[0] as ResolvedAddress;
        callback(null, first.address, first.family);
      },
      (error: Error) => callback(error as NodeJS.ErrnoException, '', 4),
    );
  };

  #isListed(address: ParsedAddress, hostname: string): boolean {
    const host = stripBrackets(hostname).toLowerCase();
    for (const rule of this.#rules) {
      if (rule.kind === 'host' && rule.host === host) return true;
      if (rule.kind === 'range' && rule.range) {
        const [base, bits] = rule.range;
        if (base.kind() === address.kind() && address.match(base as never, bits)) return true;
      }
    }
    return false;
  }
}

function parseRule(entry: string): AllowRule {
  const text = stripBrackets(entry.trim()).toLowerCase();
  if (text.includes('/')) {
    try {
      const [base, bits] = ipaddr.parseCIDR(text);
      return { kind: 'range', range: [base, bits] };
    } catch {
      throw new Error(`allowPrivateNetwork: "${entry}" is not a valid CIDR range.`);
    }
  }
  if (ipaddr.isValid(text)) {
    const parsed = normalise(ipaddr.parse(text));
    return { kind: 'range', range: [parsed, parsed.kind() === 'ipv4' ? 32 : 128] };
  }
  return { kind: 'host', host: text };
}

/** IPv4-mapped IPv6 (`::ffff:127.0.0.1`) is checked as the IPv4 address it carries. */
function normalise(address: ParsedAddress): ParsedAddress {
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (address as ipaddr.IPv6).toIPv4Address();
  }
  return address;
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function describeRange(range: string): string {
  switch (range) {
    case 'loopback':
      return 'loopback';
    case 'private':
    case 'uniqueLocal':
      return 'private-network';
    case 'linkLocal':
      return 'link-local';
    case 'unspecified':
      return 'unspecified (0.0.0.0 / ::)';
    case 'carrierGradeNat':
      return 'carrier-grade NAT';
    case 'multicast':
      return 'multicast';
    case 'broadcast':
      return 'broadcast';
    default:
      return `non-public (${range})`;
  }
}

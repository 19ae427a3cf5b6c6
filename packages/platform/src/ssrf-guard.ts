import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { ToolError, ToolErrorCode } from '@toolsys/core-tool-registry';
import type ipaddr from 'ipaddr.js';
import { lazyModule } from './lazy-module.js';

const ipaddrModule = lazyModule<typeof ipaddr>('ipaddr.js', import.meta.url);

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

/** Why a metadata address is refused (its refusal names the one setting that opens it). */
const METADATA_REASON = 'a cloud metadata address';

/**
 * Addresses of cloud instance-metadata and credential services: refused even when private
 * networks are allowed, in every encoding (IPv4-mapped, NAT64, 6to4, Teredo …), unless an
 * operator lists the exact address. AWS IMDS (IPv4 and IPv6), ECS task metadata and credentials,
 * EKS Pod Identity, Alibaba Cloud; GCP, Azure, OCI and DigitalOcean use 169.254.169.254 too, and
 * the whole link-local range (169.254.0.0/16, fe80::/10) is refused with them.
 */
export const METADATA_ADDRESSES: ReadonlySet<string> = new Set([
  '169.254.169.254',
  '169.254.170.2',
  '169.254.170.23',
  'fd00:ec2::254',
  'fd00:ec2::23',
  '100.100.100.200',
]);

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
    const host = canonicalHost(url.hostname);
    if (ipaddrModule().isValid(host)) this.assertAddressAllowed(host, host);
  }

  /**
   * Why an address is refused for this host name, or undefined when it is allowed. An IPv6
   * address that carries an IPv4 address (IPv4-mapped or -compatible, NAT64 `64:ff9b::/96`, 6to4
   * `2002::/16`, Teredo `2001::/32`) is refused when either of them is.
   */
  refusalReason(address: string, hostname: string): string | undefined {
    const text = canonicalHost(address);
    if (!ipaddrModule().isValid(text)) return `"${address}" is not an IP address`;
    const parsed = ipaddrModule().parse(text);
    const carried = embeddedIPv4(parsed);
    for (const inner of carried) {
      const reason = this.#reasonFor(inner, hostname);
      if (reason !== undefined) return reason;
    }
    // A translation address (NAT64, 6to4, Teredo) means the IPv4 addresses it carries.
    if (carried.length > 0) return undefined;
    return this.#reasonFor(parsed, hostname);
  }

  #reasonFor(parsed: ParsedAddress, hostname: string): string | undefined {
    const canonical = parsed.toString();
    const range = parsed.range();
    if (METADATA_ADDRESSES.has(canonical)) {
      // Only a rule naming this very address opens a metadata endpoint.
      return this.#isListedExactly(parsed) ? undefined : METADATA_REASON;
    }
    if (range === 'unicast') return undefined;
    if (this.#isListed(parsed, hostname)) return undefined;
    if (this.#allowAll && range !== 'linkLocal') return undefined;
    return `a ${describeRange(range)} address`;
  }

  /** Throws PERMISSION_DENIED when the address is refused. */
  assertAddressAllowed(address: string, hostname: string): void {
    const reason = this.refusalReason(address, hostname);
    if (reason === undefined) return;
    const shown = hostname === address ? address : `${hostname} (${address})`;
    const metadata = reason === METADATA_REASON;
    throw new ToolError(
      ToolErrorCode.PERMISSION_DENIED,
      metadata
        ? `Refused to connect to ${shown}: it is ${reason}, which hands out the machine's credentials; this deployment does not allow requests to it.`
        : `Refused to connect to ${shown}: it is ${reason}, and this deployment does not allow requests to private or internal networks.`,
      {
        hint: metadata
          ? `Use a public URL; do not retry with another internal address. allowPrivateNetwork: true never opens a metadata endpoint: only an operator who lists this exact address (${canonicalHost(address)}) in allowPrivateNetwork can.`
          : 'Use a public URL; do not retry with another internal address. Only an operator can allow internal hosts (the allowPrivateNetwork option of the network tools).',
        details: { host: hostname, blocked: true },
      },
    );
  }

  /**
   * Resolves a host name and checks every address it has; refuses the host when any of them is
   * blocked. Returns the checked addresses (literal IPs are returned as they are).
   */
  async resolve(hostname: string): Promise<readonly ResolvedAddress[]> {
    const host = canonicalHost(hostname);
    if (ipaddrModule().isValid(host)) {
      this.assertAddressAllowed(host, host);
      return [{ address: host, family: ipaddrModule().parse(host).kind() === 'ipv6' ? 6 : 4 }];
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

  #isListedExactly(address: ParsedAddress): boolean {
    return this.#rules.some(
      (rule) =>
        rule.kind === 'range' &&
        rule.range !== undefined &&
        rule.range[1] === (rule.range[0].kind() === 'ipv4' ? 32 : 128) &&
        rule.range[0].toString() === address.toString(),
    );
  }

  #isListed(address: ParsedAddress, hostname: string): boolean {
    const host = canonicalHost(hostname);
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
  const text = canonicalHost(entry);
  if (text.includes('/')) {
    try {
      const [base, bits] = ipaddrModule().parseCIDR(text);
      return { kind: 'range', range: [base, bits] };
    } catch {
      throw new Error(`allowPrivateNetwork: "${entry}" is not a valid CIDR range.`);
    }
  }
  if (ipaddrModule().isValid(text)) {
    const parsed = normalise(ipaddrModule().parse(text));
    return { kind: 'range', range: [parsed, parsed.kind() === 'ipv4' ? 32 : 128] };
  }
  return { kind: 'host', host: text };
}

/** IPv4-mapped (`::ffff:127.0.0.1`), -translated and -compatible IPv6 as the IPv4 they carry. */
function normalise(address: ParsedAddress): ParsedAddress {
  if (address.kind() !== 'ipv6') return address;
  const parts = (address as ipaddr.IPv6).parts as number[];
  const at = (index: number) => parts[index] ?? 0;
  const zeros = (count: number) => parts.slice(0, count).every((part) => part === 0);
  const mapped = zeros(5) && at(5) === 0xffff;
  const translated = zeros(4) && at(4) === 0xffff && at(5) === 0;
  const compatible = zeros(6) && (at(6) !== 0 || at(7) > 1);
  return mapped || translated || compatible ? ipv4From(at(6), at(7)) : address;
}

function ipv4From(high: number, low: number): ipaddr.IPv4 {
  return new (ipaddrModule().IPv4)([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/**
 * The IPv4 addresses an IPv6 address carries and that traffic to it may reach: NAT64
 * (`64:ff9b::/96`, local-use `64:ff9b:1::/48`), 6to4 (`2002:AABB:CCDD::/48`) and Teredo
 * (`2001:0::/32`: the server, and the client with its bits inverted).
 */
export function embeddedIPv4(address: ParsedAddress): ipaddr.IPv4[] {
  if (address.kind() !== 'ipv6') return [];
  const parts = (address as ipaddr.IPv6).parts as number[];
  const at = (index: number) => parts[index] ?? 0;
  const found: ipaddr.IPv4[] = [];
  if (at(0) === 0x64 && at(1) === 0xff9b) found.push(ipv4From(at(6), at(7)));
  if (at(0) === 0x2002) found.push(ipv4From(at(1), at(2)));
  if (at(0) === 0x2001 && at(1) === 0) {
    found.push(ipv4From(at(2), at(3)), ipv4From(at(6) ^ 0xffff, at(7) ^ 0xffff));
  }
  return found;
}

/**
 * One spelling per host, for comparing hosts with lists: lower case, without brackets or
 * trailing dots; an IPv4 address in any form `inet_aton` accepts (`2130706433`, `0x7f.1`,
 * `0177.0.0.1`, `127.1`) as dotted decimal; an IPv6 address in its canonical text, and as the
 * IPv4 address when it only wraps one (`::ffff:127.0.0.1`, `::ffff:7f00:1`, `::127.0.0.1`).
 */
export function canonicalHost(host: string): string {
  let text = host.trim().toLowerCase();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  while (text.endsWith('.')) text = text.slice(0, -1);
  const v4 = parseLooseIPv4(text);
  if (v4 !== undefined) return v4;
  const zone = text.indexOf('%');
  const bare = zone === -1 ? text : text.slice(0, zone);
  if (bare.includes(':') && ipaddrModule().IPv6.isValid(bare)) {
    return normalise(ipaddrModule().IPv6.parse(bare)).toString();
  }
  return text;
}

/** An IPv4 address in the forms `inet_aton` and URL parsers accept, as dotted decimal. */
function parseLooseIPv4(text: string): string | undefined {
  const parts = text.split('.');
  if (parts.length < 1 || parts.length > 4 || parts.some((part) => part === '')) return undefined;
  const numbers: number[] = [];
  for (const part of parts) {
    let value: number;
    if (/^0x[0-9a-f]*$/.test(part))
      value = part.length === 2 ? 0 : Number.parseInt(part.slice(2), 16);
    else if (/^0[0-7]+$/.test(part)) value = Number.parseInt(part.slice(1), 8);
    else if (/^(?:0|[1-9][0-9]*)$/.test(part)) value = Number(part);
    else return undefined;
    if (part.length > 40 || !Number.isSafeInteger(value)) return undefined;
    numbers.push(value);
  }
  const last = numbers.pop() as number;
  if (numbers.some((value) => value > 255)) return undefined;
  const rest = 4 - numbers.length;
  if (last >= 256 ** rest) return undefined;
  const bytes = [...numbers];
  for (let index = rest - 1; index >= 0; index--) bytes.push(Math.floor(last / 256 ** index) % 256);
  return bytes.join('.');
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

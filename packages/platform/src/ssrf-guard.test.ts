import { isToolError } from '@toolsys/core-tool-registry';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalHost, SsrfGuard } from './ssrf-guard.js';

const neverResolve = async (): Promise<never> => {
  throw new Error('the resolver must not be called for a literal address');
};

describe('SsrfGuard', () => {
  const guard = new SsrfGuard({ resolveHost: neverResolve });

  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['10.0.0.1', 'a private-network address'],
    ['192.168.1.20', 'a private-network address'],
    ['172.16.0.1', 'a private-network address'],
    ['169.254.169.254', 'a cloud metadata address'],
    ['169.254.10.1', 'a link-local address'],
    ['100.100.100.200', 'a cloud metadata address'],
    ['100.64.0.1', 'a carrier-grade NAT address'],
    ['0.0.0.0', 'a unspecified (0.0.0.0 / ::) address'],
    ['::1', 'a loopback address'],
    ['::ffff:127.0.0.1', 'a loopback address'],
    ['::ffff:a9fe:a9fe', 'a cloud metadata address'],
    ['fd00:ec2::254', 'a cloud metadata address'],
    ['fc00::1', 'a private-network address'],
    ['fe80::1', 'a link-local address'],
    ['224.0.0.1', 'a multicast address'],
  ])('refuses %s by default as %s', (address, reason) => {
    expect(guard.refusalReason(address, address)).toBe(reason);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111'])('allows public %s', (address) => {
    expect(guard.refusalReason(address, address)).toBeUndefined();
  });

  it('allows exactly the listed addresses, ranges and host names', () => {
    const listed = new SsrfGuard({
      allowPrivateNetwork: ['127.0.0.1', '10.1.0.0/16', 'searx.lan'],
    });
    expect(listed.refusalReason('127.0.0.1', '127.0.0.1')).toBeUndefined();
    expect(listed.refusalReason('127.0.0.2', '127.0.0.2')).toBe('a loopback address');
    expect(listed.refusalReason('10.1.200.3', '10.1.200.3')).toBeUndefined();
    expect(listed.refusalReason('10.2.0.1', '10.2.0.1')).toBe('a private-network address');
    expect(listed.refusalReason('192.168.0.9', 'searx.lan')).toBeUndefined();
    expect(listed.refusalReason('192.168.0.9', 'other.lan')).toBe('a private-network address');
  });

  it('keeps cloud metadata blocked when private networks are allowed wholesale', () => {
    const open = new SsrfGuard({ allowPrivateNetwork: true });
    expect(open.refusalReason('10.0.0.1', '10.0.0.1')).toBeUndefined();
    expect(open.refusalReason('127.0.0.1', 'localhost')).toBeUndefined();
    expect(open.refusalReason('169.254.169.254', '169.254.169.254')).toBe(
      'a cloud metadata address',
    );
  });

  it('refuses a literal private URL with PERMISSION_DENIED before any lookup', () => {
    let thrown: unknown;
    try {
      guard.checkUrl(new URL('http://169.254.169.254/latest/meta-data/'));
    } catch (error) {
      thrown = error;
    }
    expect(isToolError(thrown) && thrown.code).toBe('PERMISSION_DENIED');
    expect((thrown as Error).message).toContain('169.254.169.254');
  });

  it('names the one setting that opens a metadata endpoint, not the wholesale switch', () => {
    const open = new SsrfGuard({ allowPrivateNetwork: true });
    let thrown: unknown;
    try {
      open.checkUrl(new URL('http://169.254.169.254/latest/meta-data/'));
    } catch (error) {
      thrown = error;
    }
    expect(isToolError(thrown) && thrown.options.hint).toBe(
      'Use a public URL; do not retry with another internal address. allowPrivateNetwork: true never opens a metadata endpoint: only an operator who lists this exact address (169.254.169.254) in allowPrivateNetwork can.',
    );
    const listed = new SsrfGuard({ allowPrivateNetwork: ['169.254.169.254'] });
    expect(() =>
      listed.checkUrl(new URL('http://169.254.169.254/latest/meta-data/')),
    ).not.toThrow();
  });

  it('normalises decimal and hex IPv4 forms through the URL parser', () => {
    for (const url of ['http://2130706433/', 'http://0x7f.1/', 'http://[::ffff:7f00:1]/']) {
      expect(() => guard.checkUrl(new URL(url))).toThrow(/loopback/);
    }
  });

  it('rejects non-http schemes and credentials in the URL as INVALID_ARGUMENT', () => {
    expect(() => guard.checkUrl(new URL('file:///etc/passwd'))).toThrow(/only http and https/);
    expect(() => guard.checkUrl(new URL('http://user:pw@example.com/'))).toThrow(/credentials/);
  });

  it('refuses a host when any resolved address is private (DNS answers mixing public and private)', async () => {
    const mixed = new SsrfGuard({
      resolveHost: async () => [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.1', family: 4 },
      ],
    });
    await expect(mixed.resolve('rebind.example')).rejects.toThrow(
      /rebind\.example \(10\.0\.0\.1\).*private-network/,
    );
  });

  it('passes the checked address to the socket through lookup', async () => {
    const resolving = new SsrfGuard({
      resolveHost: async () => [{ address: '93.184.216.34', family: 4 }],
    });
    const answer = await new Promise<unknown>((resolvePromise, reject) => {
      resolving.lookup('example.test', { all: true }, (error, addresses) =>
        error ? reject(error) : resolvePromise(addresses),
      );
    });
    expect(answer).toEqual([{ address: '93.184.216.34', family: 4 }]);
  });

  it('rejects an invalid CIDR in the allow-list at construction', () => {
    expect(() => new SsrfGuard({ allowPrivateNetwork: ['10.0.0.0/99'] })).toThrow(/CIDR/);
  });
});

describe('addresses in other encodings', () => {
  const strict = new SsrfGuard({ resolveHost: neverResolve });
  const open = new SsrfGuard({ allowPrivateNetwork: true, resolveHost: neverResolve });

  it.each([
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['[::FFFF:7f00:1]', '127.0.0.1'],
    ['::127.0.0.1', '127.0.0.1'],
    ['::ffff:0:127.0.0.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['127.0.0.1.', '127.0.0.1'],
    ['Example.COM..', 'example.com'],
    ['[fe80::1%eth0]', 'fe80::1'],
    ['::1', '::1'],
    ['256.1.1.1', '256.1.1.1'],
    ['1.2.3.4.example', '1.2.3.4.example'],
  ])('canonicalHost(%s) is %s', (host, expected) => {
    expect(canonicalHost(host)).toBe(expected);
  });

  it.each([
    '169.254.169.254',
    '169.254.170.2',
    '169.254.170.23',
    'fd00:ec2::254',
    'fd00:ec2::23',
    '100.100.100.200',
    '::ffff:169.254.169.254',
    '::ffff:a9fe:a9fe',
    '::169.254.169.254',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b::169.254.169.254',
    '64:ff9b:1::a9fe:a9fe',
    '2002:a9fe:a9fe::1',
    '2001:0:a9fe:a9fe::1',
    '2001:0:4136:e378:8000:63bf:5601:5601',
    '2852039166',
    '0xa9.0xfe.0xa9.0xfe',
    '0251.0376.0251.0376',
    '169.254.43518',
  ])('refuses the metadata endpoint %s even when private networks are allowed', (address) => {
    expect(open.refusalReason(address, address)).toBeDefined();
    expect(strict.refusalReason(address, address)).toBeDefined();
  });

  it.each(['169.254.1.1', 'fe80::1', 'fe80::abcd:1', '::ffff:169.254.3.4', '64:ff9b::a9fe:0101'])(
    'refuses link-local %s even when private networks are allowed',
    (address) => {
      expect(open.refusalReason(address, address)).toBe('a link-local address');
    },
  );

  it.each([
    '::ffff:127.0.0.1',
    '::127.0.0.1',
    '64:ff9b::7f00:1',
    '2002:7f00:1::',
    '2002:a00:1::',
    '2001:0:7f00:1::',
    '2001:0:4136:e378:8000:63bf:80ff:fffe',
    '::ffff:10.0.0.1',
  ])('refuses %s by default: it carries a private IPv4 address', (address) => {
    expect(strict.refusalReason(address, address)).toBeDefined();
  });

  it('allows a NAT64 or 6to4 form of a public address', () => {
    expect(strict.refusalReason('64:ff9b::808:808', '64:ff9b::808:808')).toBeUndefined();
    expect(strict.refusalReason('2002:808:808::1', '2002:808:808::1')).toBeUndefined();
  });

  it('opens a metadata address only for a rule naming exactly it', () => {
    const broad = new SsrfGuard({ allowPrivateNetwork: ['169.254.0.0/16', '0.0.0.0/0'] });
    expect(broad.refusalReason('169.254.169.254', 'x')).toBe('a cloud metadata address');
    expect(broad.refusalReason('169.254.1.1', 'x')).toBeUndefined();
    const exact = new SsrfGuard({ allowPrivateNetwork: ['169.254.170.2'] });
    expect(exact.refusalReason('169.254.170.2', 'x')).toBeUndefined();
    expect(exact.refusalReason('::ffff:169.254.170.2', 'x')).toBeUndefined();
  });

  it('refuses every IPv4-mapped, NAT64, 6to4, Teredo and numeric form of a refused IPv4 address (property)', () => {
    const refusedV4 = fc.oneof(
      fc.tuple(fc.constant(127), fc.nat(255), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(10), fc.nat(255), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(169), fc.constant(254), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(192), fc.constant(168), fc.nat(255), fc.nat(255)),
    );
    fc.assert(
      fc.property(refusedV4, fc.nat(0xffff), ([a, b, c, d], tail) => {
        const high = ((a << 8) | b).toString(16);
        const low = ((c << 8) | d).toString(16);
        const forms = [
          `::ffff:${a}.${b}.${c}.${d}`,
          `::ffff:${high}:${low}`,
          `64:ff9b::${high}:${low}`,
          `2002:${high}:${low}::${tail.toString(16)}`,
          `2001:0:${high}:${low}::${tail.toString(16)}`,
          String(a * 2 ** 24 + b * 2 ** 16 + c * 2 ** 8 + d),
          `0x${a.toString(16)}.${b}.${c}.0${d.toString(8)}`,
        ];
        for (const form of forms) {
          expect(strict.refusalReason(form, form), form).toBeDefined();
        }
        if (a === 169) {
          for (const form of forms) expect(open.refusalReason(form, form), form).toBeDefined();
        }
      }),
      { numRuns: 300 },
    );
  });

  it('checks a URL host in any of these forms before a lookup', () => {
    expect(() => strict.checkUrl(new URL('http://[::ffff:127.0.0.1]/'))).toThrow(/Refused/);
    for (const url of [
      'http://[::ffff:a9fe:a9fe]/latest/meta-data/',
      'http://[64:ff9b::a9fe:a9fe]/',
      'http://2852039166/',
      'http://0xa9fea9fe/',
      'http://169.254.169.254./',
      'http://[fd00:ec2::23]/',
    ]) {
      expect(() => open.checkUrl(new URL(url)), url).toThrow(/Refused/);
    }
  });
});

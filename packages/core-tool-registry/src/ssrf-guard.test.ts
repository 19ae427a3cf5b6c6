import { describe, expect, it } from 'vitest';
import { SsrfGuard } from './ssrf-guard.js';
import { isToolError } from './tool-error.js';

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

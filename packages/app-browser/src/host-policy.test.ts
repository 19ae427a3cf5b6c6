import { describe, expect, it } from 'vitest';
import { createHostPolicy } from './host-policy.js';

describe('createHostPolicy', () => {
  it('lets every host through without lists', () => {
    expect(createHostPolicy({})('example.com')).toBeUndefined();
  });

  it('refuses blocked hosts and subdomains matched by a wildcard', () => {
    const policy = createHostPolicy({ blockedHosts: ['ads.example.com', '*.tracker.test'] });
    expect(policy('ADS.example.com')).toBe(
      "ads.example.com is on the deployment's list of blocked hosts",
    );
    expect(policy('a.b.tracker.test')).toBe(
      "a.b.tracker.test is on the deployment's list of blocked hosts",
    );
    expect(policy('tracker.test')).toBeUndefined();
    expect(policy('example.com')).toBeUndefined();
  });

  it('allows only listed hosts when an allow list is given, the block list first', () => {
    const policy = createHostPolicy({
      allowedHosts: ['*.example.com', 'example.com'],
      blockedHosts: ['admin.example.com'],
    });
    expect(policy('www.example.com')).toBeUndefined();
    expect(policy('example.com')).toBeUndefined();
    expect(policy('admin.example.com')).toBe(
      "admin.example.com is on the deployment's list of blocked hosts",
    );
    expect(policy('[::1]')).toBe("::1 is not on the deployment's list of allowed hosts");
  });
});

import { describe, expect, it } from 'vitest';
import { describeScaleOut } from './doctor.js';

const since = Date.parse('2026-01-02T03:04:05.000Z');
const otlp = { configured: false } as const;
const shared = {
  configured: true,
  mode: 'shared',
  since,
  url: 'redis://10.0.0.5:6379',
  keyPrefix: 'team:',
  grantMaxStalenessMs: 5000,
} as const;

describe('doctor: the redis line', () => {
  it('says grant revocations arrive over pub/sub while the subscriber listens', () => {
    const [line] = describeScaleOut({
      redis: { ...shared, subscriber: { state: 'subscribed', since } },
      otlp,
    });
    expect(line).toBe(
      'redis:     shared via redis://10.0.0.5:6379 (keys team:*) since 2026-01-02T03:04:05.000Z; grant revocations arrive over pub/sub (at most 5 s late when a message is lost)',
    );
  });

  it('says revocations take effect only within the staleness window while it reconnects', () => {
    const [line] = describeScaleOut({
      redis: {
        ...shared,
        subscriber: { state: 'connecting', since, lastError: 'connection closed' },
      },
      otlp,
    });
    expect(line).toBe(
      'redis:     shared via redis://10.0.0.5:6379 (keys team:*) since 2026-01-02T03:04:05.000Z; grant revocations not subscribed since 2026-01-02T03:04:05.000Z (connection closed): they take effect here within 5 s',
    );
  });
});

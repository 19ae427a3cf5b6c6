import { afterEach, describe, expect, it } from 'vitest';
import { RedisConnection, redactUrl } from './redis-connection.js';

const opened: RedisConnection[] = [];

afterEach(async () => {
  for (const connection of opened.splice(0)) await connection.close();
});

describe('redactUrl', () => {
  it('drops the user-info and the query and keeps the rest', () => {
    expect(redactUrl('redis://user:s3cret@10.0.0.5:6379/2?password=other')).toBe(
      'redis://***@10.0.0.5:6379/2?…',
    );
  });

  it('leaves a URL without a password as it is', () => {
    expect(redactUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
  });

  it('never echoes an unparsable URL (it may hold a secret)', () => {
    expect(redactUrl('not a url:s3cret')).toBe('(unparsable url)');
  });
});

describe('RedisConnection without a reachable Redis', () => {
  it('starts local, answers operations with undefined at once, and says why', async () => {
    // Port 1 on loopback: nothing listens, so the connection is refused (no Redis needed).
    const connection = new RedisConnection({ url: 'redis://127.0.0.1:1', probeIntervalMs: 50 });
    opened.push(connection);
    let ran = false;
    const answer = await connection.run(async () => {
      ran = true;
      return 'never';
    });
    expect(answer).toBeUndefined();
    expect(ran).toBe(false);
    expect(await connection.waitUntilShared(300)).toBe(false);
    expect(connection.status()).toMatchObject({
      mode: 'local',
      url: 'redis://127.0.0.1:1',
      keyPrefix: 'toolsys:',
      lastError: expect.stringContaining('ECONNREFUSED'),
    });
  });

  it('puts keys under the prefix', () => {
    const connection = new RedisConnection({ url: 'redis://127.0.0.1:1', keyPrefix: 'team:' });
    opened.push(connection);
    expect(connection.key('rate', 'web_fetch')).toBe('team:rate:web_fetch');
  });
});

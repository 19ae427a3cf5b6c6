import { stat } from 'node:fs/promises';
import { createTempDir, removeTempDir } from '@toolsys/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileOAuthStore } from './oauth-store.js';

describe('FileOAuthStore', () => {
  let directory: string;
  beforeEach(async () => {
    directory = await createTempDir('oauth-store-');
  });
  afterEach(async () => {
    await removeTempDir(directory);
  });

  it('keeps credentials per principal and server, readable by the owner only', async () => {
    const store = FileOAuthStore.under(directory, 'token:alice', 'remote');
    await store.save({ tokens: { access_token: 'a', token_type: 'Bearer' } });
    expect((await stat(store.path)).mode & 0o777).toBe(0o600);
    expect(await store.load()).toEqual({ tokens: { access_token: 'a', token_type: 'Bearer' } });
    expect(await FileOAuthStore.under(directory, 'token:bob', 'remote').load()).toEqual({});
    await store.clear();
    expect(await store.load()).toEqual({});
  });

  it('encodes names, so none reaches outside the directory', () => {
    const store = FileOAuthStore.under(directory, '../..', '../../etc/passwd');
    expect(store.path.startsWith(directory)).toBe(true);
    expect(store.path.slice(directory.length)).not.toContain('/../');
  });
});

import type { ToolResult } from '@toolsys/core-tool-registry';
import { createToolExecutor, ToolRegistry } from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { createRandomTools } from './random-tools.js';

const registry = new ToolRegistry();
registry.registerAll(createRandomTools(), { owner: 'test' });
const executor = createToolExecutor({ registry });

function call(id: string, args: Record<string, unknown>): Promise<ToolResult> {
  return executor.execute(id, args);
}

async function values(args: Record<string, unknown>): Promise<Array<number | string>> {
  const result = await call('random_generate', args);
  if (!result.ok) throw new Error(result.error.message);
  return (result.data as { values: Array<number | string> }).values;
}

describe('random_generate', () => {
  it('draws integers inside the inclusive range', async () => {
    const drawn = (await values({ kind: 'integer', min: -3, max: 3, count: 500 })) as number[];
    expect(drawn).toHaveLength(500);
    for (const value of drawn) {
      expect(Number.isInteger(value)).toBe(true);
      expect(value).toBeGreaterThanOrEqual(-3);
      expect(value).toBeLessThanOrEqual(3);
    }
    expect(new Set(drawn).size).toBe(7);
  });

  it('draws unique integers covering the whole range when count equals its size', async () => {
    const drawn = (await values({
      kind: 'integer',
      min: 1,
      max: 10,
      count: 10,
      unique: true,
    })) as number[];
    expect([...drawn].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('draws floats in [min, max)', async () => {
    const drawn = (await values({ kind: 'float', min: 1, max: 2, count: 200 })) as number[];
    for (const value of drawn) {
      expect(value).toBeGreaterThanOrEqual(1);
      expect(value).toBeLessThan(2);
    }
  });

  it('picks from choices, without repeats when unique', async () => {
    const drawn = await values({
      kind: 'choice',
      choices: ['a', 'b', 'c'],
      count: 3,
      unique: true,
    });
    expect([...drawn].sort()).toEqual(['a', 'b', 'c']);
  });

  it('makes passwords of the requested length containing every class of the charset', async () => {
    const drawn = (await values({ kind: 'password', length: 12, count: 20 })) as string[];
    for (const password of drawn) {
      expect(password).toHaveLength(12);
      expect(password).toMatch(/[a-z]/);
      expect(password).toMatch(/[A-Z]/);
      expect(password).toMatch(/\d/);
      expect(password).toMatch(/[!#$%&*+\-=?@^_~]/);
    }
    const digits = (await values({ kind: 'password', charset: 'digits', length: 8 })) as string[];
    expect(digits[0]).toMatch(/^\d{8}$/);
  });

  it('encodes random bytes as hex or base64url', async () => {
    expect((await values({ kind: 'bytes', length: 16 }))[0]).toMatch(/^[0-9a-f]{32}$/);
    expect((await values({ kind: 'bytes', length: 3, encoding: 'base64url' }))[0]).toMatch(
      /^[A-Za-z0-9_-]{4}$/,
    );
  });

  it('rejects max below min naming max', async () => {
    expect(await call('random_generate', { kind: 'integer', min: 5, max: 1 })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'max' },
    });
  });

  it('rejects too many unique values naming count', async () => {
    expect(
      await call('random_generate', { kind: 'integer', min: 1, max: 3, count: 4, unique: true }),
    ).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', field: 'count' } });
  });

  it('requires choices for kind=choice and a known kind', async () => {
    expect(await call('random_generate', { kind: 'choice' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'choices' },
    });
    expect(await call('random_generate', { kind: 'dice' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'kind' },
    });
  });

  it('declares itself read-only but not idempotent', () => {
    expect(registry.get('random_generate')?.metadata.annotations).toMatchObject({
      readOnlyHint: true,
      idempotentHint: false,
    });
  });
});

describe('uuid_generate', () => {
  it('generates distinct version 4 UUIDs', async () => {
    const result = await call('uuid_generate', { count: 50 });
    if (!result.ok) throw new Error(result.error.message);
    const { uuids } = result.data as { uuids: string[] };
    expect(new Set(uuids).size).toBe(50);
    for (const uuid of uuids) {
      expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    expect(result.content).toBe(uuids.join('\n'));
  });

  it('generates version 7 UUIDs carrying the current time, in ascending order', async () => {
    const before = Date.now();
    const result = await call('uuid_generate', { version: 'v7', count: 20, uppercase: true });
    const after = Date.now();
    if (!result.ok) throw new Error(result.error.message);
    const { uuids } = result.data as { uuids: string[] };
    expect([...uuids].sort()).toEqual(uuids);
    for (const uuid of uuids) {
      expect(uuid).toMatch(/^[0-9A-F]{8}-[0-9A-F]{4}-7[0-9A-F]{3}-[89AB][0-9A-F]{3}-[0-9A-F]{12}$/);
      const millis = Number.parseInt(uuid.replace(/-/g, '').slice(0, 12), 16);
      expect(millis).toBeGreaterThanOrEqual(before);
      expect(millis).toBeLessThanOrEqual(after);
    }
  });

  it('rejects an unknown version and a count out of range', async () => {
    expect(await call('uuid_generate', { version: 'v1' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'version' },
    });
    expect(await call('uuid_generate', { count: 0 })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'count' },
    });
  });
});

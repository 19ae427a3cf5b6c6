import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PROVIDER_NAME_MAX_LENGTH, ProviderNames } from './provider-names.js';

const SAFE = /^[A-Za-z0-9_-]{1,64}$/;

describe('ProviderNames', () => {
  it('keeps safe ids and replaces dots with underscores', () => {
    const names = ProviderNames.from(['read_file', 'terminal.run', 'terminal.ubuntu.status']);
    expect(names.entries()).toEqual([
      ['read_file', 'read_file'],
      ['terminal.run', 'terminal_run'],
      ['terminal.ubuntu.status', 'terminal_ubuntu_status'],
    ]);
    expect(names.toToolId('terminal_run')).toBe('terminal.run');
  });

  it('gives a hashed name to an id whose plain name another id already has', () => {
    const names = ProviderNames.from(['terminal_run', 'terminal.run']);
    expect(names.toProviderName('terminal_run')).toBe('terminal_run');
    expect(names.toProviderName('terminal.run')).toMatch(/^terminal_run_[0-9a-f]{8}$/);
    expect(names.toToolId(names.toProviderName('terminal.run') as string)).toBe('terminal.run');
  });

  it('hashes every id of a group that shares one plain name, whatever the order', () => {
    const ids = ['a.b_c', 'a_b.c'];
    const forward = ProviderNames.from(ids).entries();
    const backward = ProviderNames.from([...ids].reverse()).entries();
    expect(forward).toEqual(backward);
    expect(forward.every(([, name]) => /^a_b_c_[0-9a-f]{8}$/.test(name))).toBe(true);
  });

  it('shortens ids longer than 64 characters with a hash suffix', () => {
    const id = `mcp__server__${'x'.repeat(80)}`;
    const name = ProviderNames.from([id]).toProviderName(id) as string;
    expect(name).toHaveLength(PROVIDER_NAME_MAX_LENGTH);
    expect(name).toMatch(SAFE);
  });

  it('returns undefined for a name the model made up', () => {
    expect(ProviderNames.from(['sum_numbers']).toToolId('sum_number')).toBeUndefined();
  });

  it('maps any set of ids to distinct safe names that map back, independent of order', () => {
    const id = fc.stringMatching(/^[a-z][a-z0-9_]{0,20}(\.[a-z0-9_]{1,30}){0,3}$/);
    fc.assert(
      fc.property(fc.uniqueArray(id, { maxLength: 30 }), (ids) => {
        const names = ProviderNames.from(ids);
        const seen = new Set<string>();
        for (const toolId of ids) {
          const name = names.toProviderName(toolId) as string;
          expect(name).toMatch(SAFE);
          expect(seen.has(name)).toBe(false);
          seen.add(name);
          expect(names.toToolId(name)).toBe(toolId);
        }
        expect(ProviderNames.from([...ids].reverse()).entries()).toEqual(names.entries());
      }),
    );
  });
});

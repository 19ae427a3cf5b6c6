import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  foreignReplicaFailure,
  HANDLE_MAX_LENGTH,
  handleArgument,
  isReplicaName,
  mintHandle,
  parseHandle,
} from './handle-id.js';

describe('handles that name their replica', () => {
  it('mints <replica>.<kind>-<128 random bits> on a named replica, <kind>-… otherwise', () => {
    const named = mintHandle('t', 'replica2');
    expect(named).toMatch(/^replica2\.t-[0-9a-f]{32}$/);
    expect(parseHandle(named)).toEqual({ replica: 'replica2', kind: 't' });
    const unnamed = mintHandle('tab');
    expect(unnamed).toMatch(/^tab-[0-9a-f]{32}$/);
    expect(parseHandle(unnamed)).toEqual({ replica: undefined, kind: 'tab' });
    // Every handle fits the argument's bound, with the longest replica name.
    expect(mintHandle('abcdefgh', 'r'.repeat(32)).length).toBeLessThanOrEqual(HANDLE_MAX_LENGTH);
  });

  it('never mints the same handle twice', () => {
    const seen = new Set(Array.from({ length: 2000 }, () => mintHandle('t', 'a')));
    expect(seen.size).toBe(2000);
  });

  it('refuses a replica name or kind that would break the form', () => {
    for (const bad of ['', 'a.b', 'a b', 'ä', 'r'.repeat(33), 'a\nb']) {
      expect(isReplicaName(bad)).toBe(false);
      expect(() => mintHandle('t', bad)).toThrow(/replica name/);
    }
    expect(() => mintHandle('T1')).toThrow(/kind/);
    expect(isReplicaName('replica_1-a')).toBe(true);
  });

  it('parses only the exact form: anything else names no replica', () => {
    for (const other of [
      't1',
      'replica1.t-abc',
      `replica1.t-${'0'.repeat(31)}`,
      `replica1.t-${'0'.repeat(32)}x`,
      `re.plica.t-${'0'.repeat(32)}`,
      `replica1.t-${'A'.repeat(32)}`,
    ]) {
      expect(parseHandle(other)).toBeUndefined();
    }
  });

  it('annotates a handle argument for the Mcp-Param-Handle header, optional or not', () => {
    const schema = z.object({
      sessionId: handleArgument('Session id.'),
      other: handleArgument('Tab.').optional().describe('Tab; default the active one.'),
    });
    const json = z.toJSONSchema(schema, { io: 'input' }) as {
      properties: Record<string, Record<string, unknown>>;
    };
    expect(json.properties.sessionId?.['x-mcp-header']).toBe('Handle');
    expect(json.properties.other?.['x-mcp-header']).toBe('Handle');
    expect(json.properties.other?.description).toBe('Tab; default the active one.');
    expect(schema.safeParse({ sessionId: 'x'.repeat(HANDLE_MAX_LENGTH + 1) }).success).toBe(false);
  });

  it('says a handle of another replica is gone there, and nothing for this replica or none', () => {
    const handle = mintHandle('t', 'replica1');
    const next = 'Start a new one with terminal.create.';
    const base = { handle, field: 'sessionId', what: 'terminal session', next };
    const failure = foreignReplicaFailure({ ...base, replicaName: 'replica2' });
    expect(failure?.error.code).toBe('NOT_FOUND');
    expect(failure?.error.field).toBe('sessionId');
    expect(failure?.error.message).toContain('replica "replica1"');
    expect(failure?.error.message).toContain('reached replica "replica2"');
    expect(failure?.error.hint).toContain(next);
    expect(failure?.error.details).toEqual({
      reason: 'replica-gone',
      openedOn: 'replica1',
      servedBy: 'replica2',
    });
    expect(foreignReplicaFailure({ ...base, replicaName: undefined })?.error.details).toMatchObject(
      { servedBy: 'unnamed' },
    );
    expect(foreignReplicaFailure({ ...base, replicaName: 'replica1' })).toBeUndefined();
    expect(foreignReplicaFailure({ ...base, handle: 't-1', replicaName: 'replica2' })).toBe(
      undefined,
    );
  });
});

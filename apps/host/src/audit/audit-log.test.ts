import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DeploymentKey } from '../deployment-key.js';
import {
  type AuditEntry,
  argumentsDigest,
  encodeAuditLine,
  MAX_AUDIT_LINE_BYTES,
} from './audit-entry.js';
import { checkAuditDirectory } from './audit-files.js';
import { AuditLog } from './audit-log.js';

const DAY = Date.parse('2026-03-10T12:00:00Z');
const KEY = DeploymentKey.generate();

function entry(overrides: Partial<AuditEntry> = {}): AuditEntry {
  return {
    time: new Date(DAY).toISOString(),
    principal: { id: 'alice', kind: 'oauth' },
    tool: 'read_file',
    risk: 'LOW',
    decision: 'allowed',
    outcome: 'ok',
    durationMs: 3,
    args: argumentsDigest({ path: 'a.txt' }, KEY),
    ...overrides,
  };
}

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'toolsys-audit-'));
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('argumentsDigest', () => {
  it('is the same whatever the key order, and differs with any value', () => {
    expect(argumentsDigest({ a: 1, b: { c: [1, 2] } }, KEY)).toBe(
      argumentsDigest({ b: { c: [1, 2] }, a: 1 }, KEY),
    );
    expect(argumentsDigest({ a: 1 }, KEY)).not.toBe(argumentsDigest({ a: 2 }, KEY));
    expect(argumentsDigest({ a: 1 }, KEY)).toMatch(/^hmac:[A-Za-z0-9_-]{22}$/);
  });

  it('cannot be checked against a guessed low-entropy value without the deployment key', () => {
    const logged = argumentsDigest({ confirm: true }, KEY);
    // What a reader of the log could compute: the plain digest of each guess, or a digest under
    // another key; neither matches the line.
    for (const guess of [{ confirm: true }, { confirm: false }]) {
      const plain = createHash('sha256').update(JSON.stringify(guess)).digest();
      expect(logged).not.toContain(plain.toString('base64url').slice(0, 22));
      expect(logged).not.toContain(plain.toString('hex').slice(0, 16));
      expect(argumentsDigest(guess, DeploymentKey.generate())).not.toBe(logged);
    }
    // The same key (another replica of the deployment) gives the same digest.
    expect(argumentsDigest({ confirm: true }, DeploymentKey.parse(KEY.export(), 'test'))).toBe(
      logged,
    );
  });

  it('says unhashable for cyclic arguments instead of throwing', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(argumentsDigest(cyclic, KEY)).toBe('hmac:unhashable');
  });
});

describe('encodeAuditLine', () => {
  it('keeps a newline or quote in a principal inside its JSON string', () => {
    const line = encodeAuditLine(
      entry({ principal: { id: 'eve"}\n{"principal":{"id":"root"', kind: 'token' } }),
    );
    expect(line.indexOf('\n')).toBe(line.length - 1);
    expect(JSON.parse(line).principal.id).toBe('eve"}\n{"principal":{"id":"root"');
  });

  it('cuts huge fields so that a line stays under the cap', () => {
    const line = encodeAuditLine(entry({ principal: { id: '\u0001'.repeat(100_000), kind: 'x' } }));
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(MAX_AUDIT_LINE_BYTES);
    expect(JSON.parse(line).principal.id).toHaveLength(257);
  });
});

describe('AuditLog', () => {
  it('appends one line per entry to the UTC day file', async () => {
    const log = new AuditLog({ dataDir, now: () => DAY });
    log.append(entry());
    log.append(entry({ tool: 'write_file', decision: 'denied', deniedBy: 'user' }));
    await log.close();
    const text = await readFile(join(dataDir, 'audit', '2026-03-10.jsonl'), 'utf8');
    const lines = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => [line.tool, line.decision])).toEqual([
      ['read_file', 'allowed'],
      ['write_file', 'denied'],
    ]);
    expect((await stat(join(dataDir, 'audit', '2026-03-10.jsonl'))).mode & 0o777).toBe(0o600);
  });

  it('stops at the day cap and says so once, in the file and to the operator', async () => {
    const warnings: string[] = [];
    const log = new AuditLog({
      dataDir,
      maxBytesPerDay: 16_384,
      now: () => DAY,
      warn: (message) => warnings.push(message),
    });
    for (let index = 0; index < 500; index++) log.append(entry());
    await log.close();
    const file = join(dataDir, 'audit', '2026-03-10.jsonl');
    expect((await stat(file)).size).toBeLessThanOrEqual(16_384);
    const text = await readFile(file, 'utf8');
    expect(text.match(/"cap-reached"/g)).toHaveLength(1);
    expect(warnings).toHaveLength(1);
    expect(log.status().dropped).toBeGreaterThan(0);
    expect(log.status().written + log.status().dropped).toBe(500);
  });

  it('deletes day files older than the retention when it opens a day', async () => {
    await writeFile(join(await ensureAudit(), '2026-03-01.jsonl'), '');
    await writeFile(join(await ensureAudit(), '2026-03-08.jsonl'), '');
    await writeFile(join(await ensureAudit(), 'notes.txt'), '');
    const log = new AuditLog({ dataDir, retainDays: 3, now: () => DAY });
    log.append(entry());
    await log.close();
    expect((await readdir(join(dataDir, 'audit'))).sort()).toEqual([
      '2026-03-08.jsonl',
      '2026-03-10.jsonl',
      'notes.txt',
    ]);
  });

  it('reports a write failure once to the operator and never throws to the caller', async () => {
    const blocked = join(dataDir, 'blocked');
    await writeFile(blocked, 'a file where the data directory should be');
    const warnings: string[] = [];
    const log = new AuditLog({ dataDir: blocked, warn: (message) => warnings.push(message) });
    expect(() => {
      log.append(entry());
      log.append(entry());
    }).not.toThrow();
    await log.close();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/audit log: cannot write .*ENOTDIR/);
    expect(log.status()).toMatchObject({ written: 0, dropped: 2 });
  });
});

describe('checkAuditDirectory', () => {
  it('says writable, or why the log cannot be written', async () => {
    expect(await checkAuditDirectory(join(dataDir, 'audit'))).toBe('writable');
    const blocked = join(dataDir, 'blocked');
    await writeFile(blocked, '');
    expect(await checkAuditDirectory(join(blocked, 'audit'))).toMatch(
      /^cannot write \(ENOTDIR\); calls are not audited$/,
    );
  });
});

async function ensureAudit(): Promise<string> {
  const directory = join(dataDir, 'audit');
  await mkdir(directory, { recursive: true });
  return directory;
}

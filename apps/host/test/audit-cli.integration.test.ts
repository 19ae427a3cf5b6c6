import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CLI = resolve(import.meta.dirname, '../src/cli.ts');
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
let scratch: string;

/** Runs the real `toolsys` CLI in a child process with a scratch data directory. */
function toolsys(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['--conditions=@toolsys/source', '--import', TSX, CLI, ...args],
      {
        cwd: scratch,
        env: { ...process.env, INIT_CWD: scratch, TOOLSYS_DATA_DIR: join(scratch, 'data') },
        timeout: 90_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

const hour = (iso: string, principal: string, tool: string, decision = 'allowed') =>
  `${JSON.stringify({ time: iso, principal: { id: principal, kind: 'token' }, tool, risk: 'LOW', decision, outcome: 'ok', durationMs: 2, args: 'hmac:00' })}\n`;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-audit-cli-'));
});

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

describe('toolsys audit', () => {
  it('shows the line `toolsys call` wrote, as a table and as JSON lines', async () => {
    const call = await toolsys(['call', 'calculate', '{"expression":"6*7"}']);
    expect(call.code).toBe(0);
    const table = await toolsys(['audit', '--since', '1h']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(
      /^time \(UTC\) +principal +tool +risk +decision +outcome +duration\n/,
    );
    expect(table.stdout).toMatch(/local \(local\) +calculate +LOW +allowed +ok +\d+ ms\n/);
    const json = await toolsys(['audit', '--json', '--tool', 'calculate']);
    const lines = json.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ principal: { id: 'local' }, tool: 'calculate' });
    expect(json.stdout).not.toContain('6*7');
    const doctor = await toolsys(['doctor']);
    expect(doctor.stdout).toMatch(/^audit: {5}.*audit \(writable\)$/m);
  }, 180_000);

  it('filters by principal and time range over several day files', async () => {
    const directory = join(scratch, 'data', 'audit');
    mkdirSync(directory, { recursive: true });
    writeFileSync(
      join(directory, '2026-01-01.jsonl'),
      hour('2026-01-01T10:00:00.000Z', 'alice', 'read_file') +
        hour('2026-01-01T11:00:00.000Z', 'bob', 'write_file', 'denied'),
    );
    writeFileSync(
      join(directory, '2026-01-02.jsonl'),
      `not json\n${hour('2026-01-02T09:00:00.000Z', 'alice', 'list_dir')}`,
    );
    const alice = await toolsys([
      'audit',
      '--json',
      '--principal',
      'alice',
      '--since',
      '2026-01-01T10:30:00Z',
      '--until',
      '2026-01-03',
    ]);
    expect(alice.code).toBe(0);
    expect(
      alice.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line).tool),
    ).toEqual(['list_dir']);
    const bob = await toolsys(['audit', '--principal', 'bob', '--until', '2026-01-02']);
    expect(bob.stdout).toContain('write_file');
    expect(bob.stdout).not.toContain('read_file');
  }, 180_000);

  it('refuses a bad time, limit or option with exit code 2 and a clear message', async () => {
    const badTime = await toolsys(['audit', '--since', 'yesterday']);
    expect(badTime.code).toBe(2);
    expect(badTime.stderr).toContain('--since must be an ISO 8601 time');
    const badLimit = await toolsys(['audit', '--limit', '0']);
    expect(badLimit.code).toBe(2);
    const reversed = await toolsys(['audit', '--since', '1h', '--until', '2d']);
    expect(reversed.code).toBe(2);
    expect(reversed.stderr).toContain('--since is after --until');
    const unknown = await toolsys(['audit', '--who', 'x']);
    expect(unknown.code).toBe(2);
  }, 180_000);
});

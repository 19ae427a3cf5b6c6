import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CLI = resolve(import.meta.dirname, '../src/cli.ts');
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
let scratch: string;

/** Runs the real `toolsys` CLI in a child process with a scratch data directory. */
function toolsys(args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['--conditions=@toolsys/source', '--import', TSX, CLI, ...args],
      {
        cwd: scratch,
        env: { ...process.env, INIT_CWD: scratch, TOOLSYS_DATA_DIR: join(scratch, 'data') },
        timeout: 90_000,
      },
      (error, stdout) => {
        done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout });
      },
    );
  });
}

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-batch-cli-'));
});

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

describe('toolsys call tool_batch_run, then toolsys trace', () => {
  it('a failing second step returns the exact Not executed text for the third, and is traced', async () => {
    const steps = [
      { tool: 'calculate', args: { expression: '2+3' } },
      { tool: 'calculate', args: { expression: '1/' } },
      { tool: 'calculate', args: { expression: '{0}*2' } },
    ];
    const batch = await toolsys(['call', 'tool_batch_run', JSON.stringify({ steps })]);
    expect(batch.code).toBe(1);
    expect(batch.stdout).toMatch(
      /^Error: \[INVALID_ARGUMENT\] Step 1 \(calculate\) failed at steps\.1\.args\.expression/,
    );
    expect(batch.stdout).toContain('[0] calculate: ok\n5\n');
    expect(batch.stdout).toContain(
      '[2] calculate: not executed\nNot executed: an earlier action in this turn failed.\n',
    );
    const trace = await toolsys(['trace', '--json']);
    expect(trace.code).toBe(0);
    const report = JSON.parse(trace.stdout) as {
      spans: Array<{ toolId: string; outcome: string; attempt: number }>;
    };
    expect(report.spans.map((span) => [span.toolId, span.outcome])).toEqual([
      ['calculate', 'ok'],
      ['calculate', 'INVALID_ARGUMENT'],
      ['tool_batch_run', 'INVALID_ARGUMENT'],
    ]);
  }, 180_000);
});

import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** Runs a fixture script as a library user would: its own Node process, nothing else running. */
function runScript(name: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const script = resolve(import.meta.dirname, 'fixtures', name);
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['--conditions=@toolsys/source', '--import', TSX, script],
      { timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

describe('a library script', { timeout: 70_000 }, () => {
  it('stays alive through a call’s retry back-off and prints the result', async () => {
    const run = await runScript('retrying-script.ts');
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('read on attempt 3\n');
    expect(run.code).toBe(0);
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from './cli-main.js';
import { wrapText } from './wrap-text.js';

const VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

async function run(argv: string[], columns?: number) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: {},
    interactive: false,
    columns,
  });
  return { code, stdout, stderr };
}

describe('runCli', () => {
  it('prints the package version for --version, -v and version', async () => {
    for (const flag of ['--version', '-v', 'version']) {
      expect(await run([flag])).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    }
  });

  it('prints help and exits 0 when run bare', async () => {
    const result = await run([]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage:');
    expect(result.stdout).toContain('toolsys serve');
  });

  it('wraps help to the terminal width', async () => {
    const result = await run(['help'], 60);
    const widest = Math.max(...result.stdout.split('\n').map((line) => line.length));
    expect(widest).toBeLessThanOrEqual(60);
    expect((await run(['help'])).stdout.split('\n').every((line) => line.length <= 80)).toBe(true);
  });

  it('suggests the closest command for a misspelled one', async () => {
    expect(await run(['lsit'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'Unknown command "lsit". Did you mean "toolsys list"? Run "toolsys help" for the list.\n',
    });
    expect((await run(['frobnicate'])).stderr).toBe(
      'Unknown command "frobnicate". Run "toolsys help" for the list.\n',
    );
  });

  it('prints a command usage for <command> --help', async () => {
    const result = await run(['call', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: toolsys call <id>/);
  });
});

describe('wrapText', () => {
  it('breaks at spaces and indents continuation lines', () => {
    expect(wrapText('one two three four', { columns: 9, indent: 2, firstColumn: 0 })).toBe(
      'one two\n  three\n  four',
    );
  });

  it('gives the lines after the first as much room as the first when they start at its column', () => {
    const wrapped = wrapText('aaa bbb ccc ddd eee fff ggg', { columns: 14, indent: 4 });
    expect(wrapped).toBe('aaa bbb\n    ccc ddd\n    eee fff\n    ggg');
  });
});

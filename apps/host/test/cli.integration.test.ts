import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CLI = resolve(import.meta.dirname, '../src/cli.ts');
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
let scratch: string;

/**
 * The environment of every run. pnpm's launchers put its hoisted store on NODE_PATH, which would
 * let a package load a dependency it does not declare; a user's shell has no such path.
 */
function childEnvironment(cwd: string): NodeJS.ProcessEnv {
  const { NODE_PATH: _hoisted, ...inherited } = process.env;
  return {
    ...inherited,
    INIT_CWD: cwd,
    TOOLSYS_DATA_DIR: join(scratch, 'data'),
    NO_COLOR: '1',
  };
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real `toolsys` CLI in a child process, from a scratch directory with its own data dir. */
function toolsys(args: string[], options: { cwd?: string } = {}): Promise<Run> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['--conditions=@toolsys/source', '--import', TSX, CLI, ...args],
      {
        cwd: options.cwd ?? scratch,
        env: childEnvironment(options.cwd ?? scratch),
        timeout: 110_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

/** Quotes one word for `sh -c`. */
function shellQuote(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}

/**
 * Runs the real CLI on a real pseudo-terminal (util-linux `script`), so that stdin, stdout and
 * stderr are all the same terminal, as when a person types the command. Output is what the
 * terminal shows, with CRLF line ends turned back into LF.
 */
function toolsysOnTerminal(args: string[]): Promise<Run> {
  const command = [process.execPath, '--conditions=@toolsys/source', '--import', TSX, CLI, ...args]
    .map(shellQuote)
    .join(' ');
  return new Promise((done) => {
    execFile(
      'script',
      ['--quiet', '--return', '--command', command, '/dev/null'],
      {
        cwd: scratch,
        env: childEnvironment(scratch),
        timeout: 110_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        done({ code, stdout: stdout.replaceAll('\r\n', '\n'), stderr });
      },
    );
  });
}

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-cli-'));
});

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

describe('toolsys call', { timeout: 120_000 }, () => {
  it('prints the rendered result and exits 0', async () => {
    const run = await toolsys(['call', 'calculate', '{"expression":"2+3*4"}']);
    expect(run).toMatchObject({ code: 0, stdout: '14\n' });
  });

  it('prints the ToolResult as one JSON object with --json', async () => {
    const run = await toolsys(['call', 'calculate', '{"expression":"2+3*4"}', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      ok: true,
      content: '14',
      data: { expression: '2+3*4', result: '14', value: 14 },
    });
  });

  it("loads each tool set's own lazy dependencies where the workspace installs them", async () => {
    // semver (version_compare) and re2js (regex_extract) load on first use, resolved from the
    // package that declares them: without NODE_PATH nothing else could find them.
    const compared = await toolsys(['call', 'version_compare', '{"a":"1.2.3","b":"1.10.0"}']);
    expect(compared.stdout).toContain('1.2.3 < 1.10.0 (minor differs)');
    expect(compared.code).toBe(0);
    const matched = await toolsys([
      'call',
      'regex_extract',
      JSON.stringify({ pattern: 'b+', text: 'abbbc' }),
      '--json',
    ]);
    expect(matched.code).toBe(0);
    expect(matched.stdout).toContain('bbb');
  });

  it('exits 1 on an unknown tool and names at most three close ids', async () => {
    const run = await toolsys(['call', 'calculat', '{}']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      'Error: [NOT_FOUND] Unknown tool "calculat". Did you mean: calculate',
    );
    const named = /Did you mean: ([^?]*)\?/.exec(run.stdout)?.[1]?.split(', ') ?? [];
    expect(named.length).toBeGreaterThan(0);
    expect(named.length).toBeLessThanOrEqual(3);
  });

  it('exits 1 with INVALID_ARGUMENT naming the field on a mistyped argument', async () => {
    const run = await toolsys(['call', 'calculate', '{"expression":5}', '--json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      field: 'expression',
    });
  });

  it('fails cleanly on an expression that tries to reach JavaScript, executing nothing', async () => {
    const marker = join(scratch, 'pwned');
    for (const expression of [
      'process.exit(1)',
      `require("fs").writeFileSync("${marker}", "x")`,
      'import("fs")',
      'constructor.constructor("return process")()',
    ]) {
      const run = await toolsys(['call', 'calculate', JSON.stringify({ expression }), '--json']);
      expect(run.code).toBe(1);
      expect(JSON.parse(run.stdout).ok).toBe(false);
    }
    expect(existsSync(marker)).toBe(false);
  }, 180_000);

  it('exits 2 with a clear message on malformed JSON', async () => {
    const run = await toolsys(['call', 'calculate', '{"expression":']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('The arguments are not valid JSON');
    expect(run.stderr).toContain('Usage: toolsys call');
  });

  it('exits 1 with INVALID_ARGUMENT when the arguments are JSON but not an object', async () => {
    const run = await toolsys(['call', 'calculate', '[1,2]']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe(
      `Error: [INVALID_ARGUMENT] arguments must be a JSON object, received array\nNext: Pass one JSON object naming each argument, e.g. toolsys call calculate '{"expression":"2+3"}'; toolsys describe <id> shows a tool's arguments.\n`,
    );
    const asJson = await toolsys(['call', 'calculate', '5', '--json']);
    expect(asJson.code).toBe(1);
    expect(JSON.parse(asJson.stdout)).toMatchObject({
      ok: false,
      error: {
        code: 'INVALID_ARGUMENT',
        message: 'arguments must be a JSON object, received number',
      },
    });
  });

  it('waits for a call that sleeps and prints its result (nothing keeps the loop alive but the call)', async () => {
    const run = await toolsys(['call', 'wait', '{"seconds":1}']);
    expect(run).toMatchObject({ code: 0, stdout: 'Waited 1 s.\n' });
  });

  it('waits out a retry back-off of web_fetch and prints the page fetched on the second attempt', async () => {
    let requests = 0;
    const server = createServer((_request, response) => {
      requests += 1;
      if (requests === 1) {
        response.writeHead(503, { 'content-type': 'text/plain' });
        response.end('busy');
        return;
      }
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('second time lucky');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const dir = mkdtempSync(join(scratch, 'fetch-'));
      writeFileSync(
        join(dir, 'toolsys.config.json'),
        JSON.stringify({ packages: { core: { network: { allowPrivateNetwork: ['127.0.0.1'] } } } }),
      );
      const { port } = server.address() as AddressInfo;
      const run = await toolsys(
        ['call', 'web_fetch', JSON.stringify({ url: `http://127.0.0.1:${port}/` })],
        {
          cwd: dir,
        },
      );
      expect(run.stderr).toContain('retrying in');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('second time lucky');
      expect(requests).toBe(2);
    } finally {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    }
  });

  it('prints streamed shell output once on a terminal, the result naming what was shown', async () => {
    const run = await toolsysOnTerminal([
      'call',
      'shell_execute',
      '{"command":"echo streamed-out; echo streamed-err >&2"}',
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout.split('streamed-out').length - 1).toBe(1);
    expect(run.stdout.split('streamed-err').length - 1).toBe(1);
    expect(run.stdout).toContain(
      '--- stdout (13 bytes) ---\n(13 bytes of stdout, shown above)\n--- stderr (13 bytes) ---\n(13 bytes of stderr, shown above)',
    );
  });

  it('keeps the full output in the result when stdout is not a terminal', async () => {
    const run = await toolsys(['call', 'shell_execute', '{"command":"echo piped-out"}', '--yes']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      '--- stdout (10 bytes) ---\n<untrusted-terminal-content>\npiped-out\n</untrusted-terminal-content>',
    );
    expect(run.stderr).toContain('piped-out');
  });

  it('refuses a MEDIUM risk call without a terminal, naming --yes and the config key', async () => {
    const run = await toolsys(['call', 'write_file', '{"path":"a.txt","content":"x"}']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('no one can confirm here');
    expect(run.stdout).toContain('run the same command with --yes (this call only)');
    expect(run.stdout).toContain('"write_file" to permissions.alwaysAllow');
    expect(existsSync(join(scratch, 'a.txt'))).toBe(false);
  });

  it('exits 2 on an unknown command or option', async () => {
    expect((await toolsys(['frobnicate'])).code).toBe(2);
    expect((await toolsys(['list', '--bogus'])).code).toBe(2);
  }, 120_000);
});

describe('toolsys list and describe', { timeout: 120_000 }, () => {
  it('ends quietly when the reader closes the pipe early (toolsys list | true)', async () => {
    const run = await new Promise<Run>((done) => {
      execFile(
        'sh',
        [
          '-c',
          // `true` exits without reading, so every write of the CLI meets a closed pipe.
          `"${process.execPath}" --conditions=@toolsys/source --import "${TSX}" "${CLI}" list | true; echo "rc=\${PIPESTATUS:-done}"`,
        ],
        {
          cwd: scratch,
          env: { ...process.env, INIT_CWD: scratch, TOOLSYS_DATA_DIR: join(scratch, 'data') },
          timeout: 110_000,
        },
        (error, stdout, stderr) => done({ code: error ? 1 : 0, stdout, stderr }),
      );
    });
    expect(run.stderr).not.toContain('EPIPE');
    expect(run.stderr).not.toContain('Error');
  });

  it('lists tools grouped by category with risk and a one-line description', async () => {
    const run = await toolsys(['list', '--category', 'utility']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^utility \(\d+\)\n/);
    expect(run.stdout).toMatch(/ {2}calculate +LOW +Evaluates a math expression/);
  });

  it('lists as JSON', async () => {
    const run = await toolsys(['list', '--json']);
    const tools = JSON.parse(run.stdout) as Array<{ id: string; risk: string }>;
    expect(tools.find((tool) => tool.id === 'calculate')).toMatchObject({ risk: 'LOW' });
  });

  it('refuses an unknown category naming the valid ones', async () => {
    const run = await toolsys(['list', '--category', 'nope']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Unknown category "nope". Categories: shell, file,');
  });

  it('exits 2, a usage error, describing an unknown tool, naming close ids and the list', async () => {
    const run = await toolsys(['describe', 'calculat']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'Unknown tool "calculat". Did you mean: calculate? toolsys list names every tool.\n',
    );
  });

  it('describes a tool with metadata, annotations and its input JSON Schema', async () => {
    const run = await toolsys(['describe', 'calculate', '--json']);
    expect(run.code).toBe(0);
    const description = JSON.parse(run.stdout);
    expect(description).toMatchObject({
      id: 'calculate',
      category: 'utility',
      risk: 'LOW',
      annotations: { readOnlyHint: true },
      inputSchema: { type: 'object', required: ['expression'] },
    });
  });

  it('reports a config file error naming the file and the field', async () => {
    const dir = mkdtempSync(join(scratch, 'cfg-'));
    writeFileSync(join(dir, 'toolsys.config.json'), '{"permissions":{"HIGH":"sometimes"}}');
    const run = await toolsys(['list'], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(join(dir, 'toolsys.config.json'));
    expect(run.stderr).toContain('permissions.HIGH');
  });
});

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The built CLI, as users start it (`npx @toolsys/host serve --stdio` runs dist/cli.js).
const CLI = resolve(import.meta.dirname, '../dist/cli.js');
const RECORDER = resolve(import.meta.dirname, 'fixtures/record-loads/register.mjs');

/** Heavy runtimes that must not load before their first use. */
const HEAVY = [
  'playwright-core',
  'webdriverio',
  'better-sqlite3',
  '@lydell/node-pty',
  'node-pty',
  '@opentelemetry/',
  'mathjs',
  '@octokit/',
];

/** Start-up on a loaded 2-core machine can take a while. */
const SLOW = { timeout: 180_000 };

let scratch: string;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-startup-'));
});

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** Runs the built CLI with the load recorder; resolves to the recorded loads and the exit code. */
function runRecorded(
  args: string[],
  name: string,
  talk?: (child: ChildProcess, lines: AsyncIterable<unknown>) => Promise<void>,
): Promise<{ loads: string[]; code: number | null; stdout: string }> {
  const record = join(scratch, `${name}.loads`);
  const child = spawn(process.execPath, ['--import', RECORDER, CLI, ...args], {
    cwd: scratch,
    env: {
      ...process.env,
      INIT_CWD: scratch,
      TOOLSYS_DATA_DIR: join(scratch, `${name}-data`),
      TOOLSYS_RECORD_LOADS: record,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  const messages = (async function* () {
    let buffer = '';
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      const text = chunk.toString('utf8');
      stdout += text;
      buffer += text;
      for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
        yield JSON.parse(buffer.slice(0, end));
        buffer = buffer.slice(end + 1);
      }
    }
  })();
  return (async () => {
    try {
      if (talk) await talk(child, messages);
      else for await (const chunk of child.stdout as AsyncIterable<Buffer>) stdout += chunk;
    } finally {
      child.stdin?.end();
    }
    const code = await new Promise<number | null>((done) => {
      if (child.exitCode !== null) done(child.exitCode);
      else child.once('exit', (exitCode) => done(exitCode));
    });
    return { loads: readFileSync(record, 'utf8').split('\n').filter(Boolean), code, stdout };
  })();
}

/** The heavy packages among the recorded loads. */
function heavyLoads(loads: string[]): string[] {
  return loads.filter((line) =>
    HEAVY.some(
      (name) =>
        line === `require:${name}` ||
        line.startsWith(`require:${name}`) ||
        line.includes(`/node_modules/${name}`),
    ),
  );
}

/** The workspace packages among the recorded loads (`@toolsys/…` or their folders). */
function toolsysLoads(loads: string[]): string[] {
  return loads.filter((line) => /@toolsys\/|\/packages\/[^/]+\/dist\//.test(line));
}

describe.skipIf(!existsSync(CLI))('start-up of the built CLI', () => {
  it('answers --version and --help without loading any package', SLOW, async () => {
    for (const flag of ['--version', '--help']) {
      const { loads, code } = await runRecorded([flag], flag.slice(2));
      expect(code, flag).toBe(0);
      expect(toolsysLoads(loads), flag).toEqual([]);
      expect(
        loads.filter((line) => line.includes('/node_modules/')),
        flag,
      ).toEqual([]);
    }
  });

  it('reports a broken config file without loading any tool package', SLOW, async () => {
    const file = join(scratch, 'broken.config.json');
    writeFileSync(file, JSON.stringify({ permisions: { HIGH: 'sometimes' }, tools: 'all' }));
    const { loads, code } = await runRecorded(['serve', '--stdio', '--config', file], 'broken');
    expect(code).toBe(2);
    // Only the kernel (for "did you mean" hints) may load: no tool package, no MCP SDK.
    expect(toolsysLoads(loads).filter((line) => !line.includes('core-tool-registry/'))).toEqual([]);
    expect(loads.filter((line) => line.includes('@modelcontextprotocol'))).toEqual([]);
  });

  it(
    'serves initialize and tools/list over stdio with none of the heavy runtimes loaded',
    SLOW,
    async () => {
      let tools = 0;
      const { loads } = await runRecorded(
        ['serve', '--stdio'],
        'serve',
        async (child, messages) => {
          const send = (message: object) => child.stdin?.write(`${JSON.stringify(message)}\n`);
          send({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: {
              protocolVersion: '2025-06-18',
              capabilities: {},
              clientInfo: { name: 'startup-test', version: '1.0.0' },
            },
          });
          for await (const message of messages as AsyncIterable<{ id?: number; result?: never }>) {
            if (message.id === 1) {
              send({ jsonrpc: '2.0', method: 'notifications/initialized' });
              send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
            }
            if (message.id === 2) {
              tools = (message.result as unknown as { tools: unknown[] }).tools.length;
              return;
            }
          }
        },
      );
      expect(tools).toBeGreaterThan(0);
      // The recorder saw the composition happen (so an empty list below means something).
      expect(toolsysLoads(loads).length).toBeGreaterThan(0);
      expect(heavyLoads(loads)).toEqual([]);
    },
  );
});

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { initializeRequest } from '@toolsys/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The built CLI, as users start it (`npx @toolsys/host serve --stdio` runs dist/cli.js): a bundle
// whose files are listed, with the packages each one holds, in dist/cli/bundle-contents.json.
const CLI = resolve(import.meta.dirname, '../dist/cli.js');
const BUNDLE_CONTENTS = resolve(import.meta.dirname, '../dist/cli/bundle-contents.json');
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
    const recorded = readFileSync(record, 'utf8').split('\n').filter(Boolean);
    return { loads: withBundledPackages(recorded), code, stdout };
  })();
}

/**
 * The recorded loads, each file of the bundle followed by the packages it holds
 * (`bundled:zod`, `bundled:@toolsys/core-tools`; the host's own code is left out).
 */
function withBundledPackages(loads: string[]): string[] {
  const contents = JSON.parse(readFileSync(BUNDLE_CONTENTS, 'utf8')) as Record<string, string[]>;
  const dist = pathToFileURL(resolve(import.meta.dirname, '../dist')).href;
  return loads.flatMap((line) => {
    const url = line.replace(/^import:/, '');
    const packages = url.startsWith(`${dist}/`) ? contents[url.slice(dist.length + 1)] : undefined;
    return [
      line,
      ...(packages ?? [])
        .filter((name) => name !== '@toolsys/host')
        .map((name) => `bundled:${name}`),
    ];
  });
}

/** The heavy packages among the recorded loads. */
function heavyLoads(loads: string[]): string[] {
  return loads.filter((line) =>
    HEAVY.some(
      (name) =>
        line === `require:${name}` ||
        line.startsWith(`require:${name}`) ||
        line.includes(`/node_modules/${name}`) ||
        line.startsWith(`bundled:${name}`),
    ),
  );
}

/** The workspace packages among the recorded loads (`@toolsys/…`, bundled or from their folders). */
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
        loads.filter((line) => line.includes('/node_modules/') || line.startsWith('bundled:')),
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
    expect(toolsysLoads(loads).filter((line) => !/core-tool-registry(\/|$)/.test(line))).toEqual(
      [],
    );
    expect(loads.filter((line) => line.includes('@modelcontextprotocol'))).toEqual([]);
  });

  it(
    'is a bundle: a start reads a few files of the host instead of every module',
    SLOW,
    async () => {
      const { loads } = await runRecorded(['--version'], 'bundle');
      expect(loads.some((line) => line.endsWith('/dist/cli.js'))).toBe(true);
      // The bundle leaves out only what loads on first use, and names no file of this machine.
      const contents = JSON.parse(readFileSync(BUNDLE_CONTENTS, 'utf8')) as Record<
        string,
        string[]
      >;
      const bundled = new Set(Object.values(contents).flat());
      for (const heavy of ['playwright-core', 'webdriverio', 'ioredis', '@octokit/rest']) {
        expect(bundled.has(heavy), heavy).toBe(false);
      }
      expect(bundled.has('zod')).toBe(true);
      expect(bundled.has('@toolsys/core-tools')).toBe(true);
      const entry = readFileSync(CLI, 'utf8');
      expect(entry.startsWith('#!/usr/bin/env node\n')).toBe(true);
      expect(entry).not.toContain(resolve(import.meta.dirname, '../../..'));
    },
  );

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
          send(initializeRequest({ clientName: 'startup-test' }));
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
      // A package that is off (no device, no token) loads its entry and probe, not its tools.
      const android = loads.filter((line) => line.includes('platform-android'));
      expect(android.length).toBeGreaterThan(0);
      expect(
        loads.filter((line) => /create-android-tools|github-client|tools\/index/.test(line)),
      ).toEqual([]);
    },
  );
});

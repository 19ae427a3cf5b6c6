import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const HOST_DIR = resolve(import.meta.dirname, '..');
const CLI_ARGS = ['--conditions=@toolsys/source', '--import', 'tsx', join(HOST_DIR, 'src/cli.ts')];

let scratch: string;
const children: ChildProcess[] = [];

function environment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    INIT_CWD: scratch,
    TOOLSYS_DATA_DIR: join(scratch, 'data'),
  };
  delete env.TOOLSYS_TOKEN;
  delete env.TOOLSYS_CONFIG;
  return env;
}

/** Each test starts the real CLI; on a loaded 2-core machine start-up alone can take a while. */
const SLOW = { timeout: 180_000 };

/** Runs the real CLI to completion. */
function toolsys(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [...CLI_ARGS, ...args],
      { cwd: HOST_DIR, env: environment(), timeout: 150_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-serve-'));
});

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
});

describe('toolsys serve --http', SLOW, () => {
  it('prints the MCP and dashboard URLs, serves both, and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, [...CLI_ARGS, 'serve', '--http', '--port', '0'], {
      cwd: HOST_DIR,
      env: environment(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const exited = new Promise<number | null>((resolveExit) => child.once('exit', resolveExit));
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    await expect.poll(() => stdout, { timeout: 150_000 }).toContain('Dashboard:');
    const mcpUrl = /MCP \(Streamable HTTP\): (http:\/\/127\.0\.0\.1:\d+\/mcp)\n/.exec(stdout)?.[1];
    const dashboardUrl = /Dashboard: +(http:\/\/127\.0\.0\.1:\d+\/)\n/.exec(stdout)?.[1];
    expect(mcpUrl).toBeDefined();
    expect(dashboardUrl).toBeDefined();

    const page = await fetch(dashboardUrl as string);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>Toolsys dashboard</title>');

    const client = new Client({ name: 'serve-command-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl as string)));
    const result = await client.callTool({ name: 'calculate', arguments: { expression: '2^10' } });
    expect(result.content).toEqual([{ type: 'text', text: '1024' }]);
    await client.close();

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('stops when the process that launched it dies without passing a signal on', async () => {
    // A launcher like `pnpm start`: it starts the server and is then killed with SIGKILL, so no
    // signal reaches the server; the server must notice and stop, freeing its port.
    const launcher = spawn(
      process.execPath,
      [
        '-e',
        `const { spawn } = require('node:child_process');
         const child = spawn(process.execPath, ${JSON.stringify([...CLI_ARGS, 'serve', '--http', '--port', '0'])},
           { stdio: ['ignore', 'inherit', 'inherit'] });
         console.log('server pid ' + child.pid);`,
      ],
      { cwd: HOST_DIR, env: environment(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.push(launcher);
    let stdout = '';
    launcher.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    await expect.poll(() => stdout, { timeout: 150_000 }).toContain('Dashboard:');
    const serverPid = Number(/server pid (\d+)/.exec(stdout)?.[1]);
    const dashboardUrl = /Dashboard: +(http:\/\/127\.0\.0\.1:\d+\/)\n/.exec(stdout)?.[1] as string;
    expect((await fetch(dashboardUrl)).status).toBe(200);
    launcher.kill('SIGKILL');
    const isAlive = () => {
      try {
        process.kill(serverPid, 0);
        return true;
      } catch {
        return false;
      }
    };
    try {
      await expect.poll(isAlive, { timeout: 20_000, interval: 200 }).toBe(false);
    } finally {
      if (isAlive()) process.kill(serverPid, 'SIGKILL');
    }
    await expect(fetch(dashboardUrl)).rejects.toThrow();
  });

  it('refuses to bind a non-loopback address without a bearer token', async () => {
    const run = await toolsys(['serve', '--http', '--host', '0.0.0.0', '--port', '0']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Refusing to bind 0.0.0.0 without a bearer token');
  });

  it('asks for exactly one transport', async () => {
    const run = await toolsys(['serve']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Choose one transport: --stdio or --http.');
  });
});

describe('toolsys doctor', SLOW, () => {
  it('says which packages are on or off and why', async () => {
    const run = await toolsys(['doctor', '--json']);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as {
      config: string | null;
      packages: Array<{ key: string; enabled: boolean; reason: string }>;
      toolMode: string;
    };
    expect(report.config).toBeNull();
    expect(report.packages.find((entry) => entry.key === 'core')).toMatchObject({
      enabled: true,
      reason: expect.stringMatching(
        /^pure Node, always available; (read-only commands run unasked in the command sandbox|no command sandbox, so every shell command asks)/,
      ),
    });
    expect(report.packages.map((entry) => entry.key)).toEqual([
      'core',
      'mcp-client',
      'cs-mem',
      'platform-terminal',
      'app-github',
      'platform-android',
      'app-browser',
    ]);
    expect(report.toolMode).toBe('all');
  });

  it('reports a package switched off in the config as off, with the reason', async () => {
    const { writeFileSync } = await import('node:fs');
    const config = join(scratch, 'doctor.config.json');
    writeFileSync(config, JSON.stringify({ packages: { 'cs-mem': { enabled: false } } }));
    const run = await toolsys(['doctor', '--config', config]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/ {2}off {2}cs-mem +disabled in config\n/);
    expect(run.stdout).toContain(`config:    ${config}`);
  });
});

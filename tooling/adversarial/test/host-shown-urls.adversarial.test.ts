import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RedisProcess, startRedis, stopProcess } from '@toolsys/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOST_CLI, HOST_DIR, HOST_NODE_ARGS } from './support/stdio-mcp-session.js';

// Issue 30 item 9: a Redis password given as `?password=`, and an OTLP endpoint's user-info
// password and `?api_key=`, were shown by /api/overview (no token needed on loopback) and by
// `toolsys doctor`. Every URL that is shown loses its user-info and query.

const REDIS_PASSWORD = 'rediSpw-7f3a9c1e';
const OTLP_PASSWORD = 'otlpPw-0b8d2e44';
const OTLP_API_KEY = 'otlpKey-5c6a7e90d1';
const SECRETS = [REDIS_PASSWORD, OTLP_PASSWORD, OTLP_API_KEY];

let redis: RedisProcess;
let collector: Server;
let scratch: string;
let config: Record<string, unknown>;
const children: ChildProcessWithoutNullStreams[] = [];

beforeAll(async () => {
  redis = await startRedis();
  await redis.cli('CONFIG', 'SET', 'requirepass', REDIS_PASSWORD);
  // A collector that accepts every export, as a real one would.
  collector = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  const collectorPort = (collector.address() as AddressInfo).port;
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-adv-shown-urls-'));
  mkdirSync(join(scratch, 'workspace'));
  config = {
    workspaceRoot: './workspace',
    state: {
      redis: {
        url: `redis://127.0.0.1:${redis.port}/0?password=${REDIS_PASSWORD}`,
        keyPrefix: 'u:',
      },
    },
    telemetry: {
      otlp: {
        endpoint: `http://collector:${OTLP_PASSWORD}@127.0.0.1:${collectorPort}/otlp?api_key=${OTLP_API_KEY}`,
      },
    },
  };
  writeFileSync(join(scratch, 'toolsys.config.json'), JSON.stringify(config));
});

afterAll(async () => {
  for (const child of children) await stopProcess(child, { signal: 'SIGKILL' });
  await new Promise((resolve) => collector.close(resolve));
  await redis.stop();
  rmSync(scratch, { recursive: true, force: true });
});

function expectNoSecret(text: string, label: string): void {
  for (const secret of SECRETS) expect(text, `${label}: ${secret}`).not.toContain(secret);
}

function cliEnvironment(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    INIT_CWD: scratch,
    TOOLSYS_DATA_DIR: join(scratch, 'data'),
    NO_COLOR: '1',
  };
}

function runCli(args: string[]): Promise<{ code: number; stdout: string }> {
  const env = cliEnvironment();
  return new Promise((done) => {
    execFile(
      process.execPath,
      [...HOST_NODE_ARGS, HOST_CLI, ...args],
      { cwd: HOST_DIR, env, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? Number((error as { code?: unknown }).code ?? 1) : 0;
        done({ code, stdout: `${stdout}${stderr}` });
      },
    );
  });
}

describe('configured URLs as shown', () => {
  it('/api/overview on loopback shows the Redis and OTLP URLs without password or query', async () => {
    // The real `toolsys serve --http` (OpenTelemetry loads as in production), on a free port.
    const child = spawn(
      process.execPath,
      [...HOST_NODE_ARGS, HOST_CLI, 'serve', '--http', '--host', '127.0.0.1', '--port', '0'],
      { cwd: HOST_DIR, env: cliEnvironment() },
    );
    children.push(child);
    let printed = '';
    const dashboard = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        printed += chunk.toString();
        const match = /Dashboard:\s+(\S+)/.exec(printed);
        if (match?.[1] !== undefined) resolve(match[1]);
      });
      child.once('exit', () => reject(new Error(`serve exited: ${printed}`)));
    });
    const response = await fetch(new URL('/api/overview', dashboard));
    expect(response.status).toBe(200);
    const overview = await response.text();
    expectNoSecret(overview, '/api/overview');
    const { scaleOut } = JSON.parse(overview) as {
      scaleOut: { redis: { url: string }; otlp: { endpoint: string } };
    };
    expect(scaleOut.redis.url).toBe(`redis://127.0.0.1:${redis.port}/0?…`);
    expect(scaleOut.otlp.endpoint).toMatch(/^http:\/\/\*\*\*@127\.0\.0\.1:\d+\/otlp\?…$/);
  });

  it('toolsys doctor, as text and as JSON', async () => {
    const text = await runCli(['doctor']);
    expect(text.stdout).toContain('redis:');
    expect(text.stdout).toContain(`redis://127.0.0.1:${redis.port}/0?…`);
    expectNoSecret(text.stdout, 'doctor');
    const json = await runCli(['doctor', '--json']);
    expect(json.stdout).toContain('"otlp"');
    expectNoSecret(json.stdout, 'doctor --json');
  });
});

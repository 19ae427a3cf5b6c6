#!/usr/bin/env node
// Serves the conformance fixture for the official MCP conformance suite's server scenarios:
//
//   node tooling/conformance/serve.mjs --port N
//
// Starts the real `toolsys serve --http` (the built CLI of apps/host) on 127.0.0.1:N with the
// fixture plugin (./fixture, `@toolsys/conformance-fixture`) composed beside the core package,
// from a config and data directory made for this run in a new temp folder. Prints the MCP URL
// once it serves. Stops its server and removes the temp folder on SIGINT, SIGTERM or SIGHUP, and
// when the server exits (with its exit code). The fixture is never part of a default deployment.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { prepareFixtureConfig } from './fixture-config.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const CLI = join(HERE, '..', '..', 'apps', 'host', 'dist', 'cli.js');

/** The port from the command line; exits 2 with the usage on a mistake. */
function portOption() {
  const usage = 'usage: serve.mjs --port N   (N from 0 to 65535; 0 picks a free port)';
  try {
    const { values } = parseArgs({ options: { port: { type: 'string' } } });
    const port = Number(values.port);
    if (values.port === undefined || !Number.isInteger(port) || port < 0 || port > 65_535) {
      throw new Error('--port: an integer from 0 to 65535');
    }
    return port;
  } catch (error) {
    console.error(`${error.message}\n${usage}`);
    process.exit(2);
  }
}

async function main() {
  const port = portOption();
  if (!existsSync(CLI)) {
    console.error(`serve.mjs: ${CLI} is missing; build the host first (pnpm build).`);
    process.exit(2);
  }
  const { base, file } = await prepareFixtureConfig();
  const child = spawn(
    process.execPath,
    [CLI, 'serve', '--http', '--host', '127.0.0.1', '--port', String(port), '--config', file],
    { cwd: base, stdio: ['ignore', 'pipe', 'inherit'], env: withoutTokens(process.env) },
  );
  let cleaned;
  const cleanUp = () => {
    cleaned ??= rm(base, { recursive: true, force: true }).catch(() => {});
    return cleaned;
  };
  let printed = false;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    process.stderr.write(chunk);
    const url = /MCP \(Streamable HTTP\): (http:\/\/127\.0\.0\.1:\d+\/\S*)/.exec(chunk);
    if (url && !printed) {
      printed = true;
      process.stdout.write(`${url[1]}\n`);
    }
  });
  const exited = new Promise((resolve) => {
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
  const stop = async () => {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
    await cleanUp();
    process.exit(0);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.once(signal, stop);
  process.once('exit', () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const code = await exited;
  await cleanUp();
  process.exit(code);
}

/** The environment without the server's token variable: the server stays tokenless on loopback. */
function withoutTokens(env) {
  const copy = { ...env };
  delete copy.TOOLSYS_TOKEN;
  return copy;
}

await main();

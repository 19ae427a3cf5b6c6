// serve.mjs starts the real `toolsys serve --http` with the fixture composed, answers a client
// over MCP, and stops its server and removes its temp folder when stopped. Run with
// `node --test serve.test.mjs` after `pnpm build`.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { McpClient } from '@toolsys/mcp-client';

const SERVE = join(dirname(fileURLToPath(import.meta.url)), 'serve.mjs');
const READY_MS = 60_000;

/** Starts serve.mjs on a free port; resolves with its URL and the child once it printed it. */
function startServe() {
  const child = spawn(process.execPath, [SERVE, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stderr.on('data', (chunk) => {
    log += chunk;
  });
  const url = new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`serve.mjs printed no URL:\n${log}`)),
      READY_MS,
    );
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      const found = /^http:\/\/127\.0\.0\.1:\d+\/mcp$/m.exec(chunk);
      if (found) {
        clearTimeout(timer);
        resolve(found[0]);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve.mjs exited (${code}):\n${log}`));
    });
  });
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, url, exited };
}

/** The temp folders serve.mjs makes that exist now. */
async function runFolders() {
  return (await readdir(tmpdir())).filter((name) => name.startsWith('toolsys-conformance-'));
}

test('serves the fixture tools over MCP and cleans up when stopped', async () => {
  const before = new Set(await runFolders());
  const serve = startServe();
  const client = new McpClient(
    { name: 'fixture', transport: 'streamable-http', url: await serve.url },
    { clientInfo: { name: 'serve-test', version: '1.0.0' } },
  );
  try {
    await client.connect({ timeoutMs: 20_000 });
    const names = (await client.listTools({ timeoutMs: 20_000 })).map((tool) => tool.name);
    for (const name of ['test_simple_text', 'test_image_content', 'test_sampling', 'calculate']) {
      assert.ok(names.includes(name), `${name} is listed`);
    }
    const result = await client.callTool('test_simple_text', {}, { timeoutMs: 20_000 });
    assert.deepEqual(result.content, [
      { type: 'text', text: 'This is a simple text response for testing.' },
    ]);
    const failed = await client.callTool('test_error_handling', {}, { timeoutMs: 20_000 });
    assert.equal(failed.isError, true);
  } finally {
    await client.close();
    serve.child.kill('SIGTERM');
  }
  assert.equal(await serve.exited, 0);
  const left = (await runFolders()).filter((name) => !before.has(name));
  assert.deepEqual(left, [], 'the temp folder is removed');
});

test('refuses a missing or bad --port with the usage', async () => {
  for (const args of [[], ['--port', 'http'], ['--port', '70000']]) {
    const child = spawn(process.execPath, [SERVE, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let errors = '';
    child.stderr.on('data', (chunk) => {
      errors += chunk;
    });
    const code = await new Promise((resolve) => child.on('exit', resolve));
    assert.equal(code, 2);
    assert.match(errors, /usage: serve\.mjs --port N/);
  }
});

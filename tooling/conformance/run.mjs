#!/usr/bin/env node
// Runs the official MCP conformance suite (@modelcontextprotocol/conformance) against Toolsys:
//
//   node tooling/conformance/run.mjs [--server] [--no-client] [--skip <prefix>]...
//                                    [--requirements <revision>]... [--concurrency N] [--timeout MS]
//
// For each requirement set (2025-11-25 and 2026-07-28 unless --requirements names some), every
// scenario the set requires is run: client scenarios against `node client.mjs`, and with --server
// the server scenarios against `node serve.mjs --port N` (started on 127.0.0.1, stopped at the
// end). Scenarios of the extensions Toolsys implements (the Tasks extension, `tasks-*`) are run and
// scored like required ones. Scenarios the set lists as not scored (the auth extensions, scenarios added after
// the release, pending ones) are run and reported but never fail the run. `--skip auth/` leaves out
// every scenario whose name starts with `auth/`. Exit code: 0 when every required scenario that ran
// passed, 1 when one failed, 2 on a usage error.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, stripVTControlCharacters } from 'node:util';

const HERE = dirname(fileURLToPath(import.meta.url));
const CLI = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/conformance/dist/index.js',
);
const REQUIREMENT_SETS = ['2025-11-25', '2026-07-28'];
const SERVE = join(HERE, 'serve.mjs');
const CLIENT = join(HERE, 'client.mjs');
const SERVER_READY_MS = 90_000;
const MIN_NODE_MAJOR = 22;

/** Parses the command line; exits 2 with the usage on a mistake. */
function options() {
  const usage =
    'usage: run.mjs [--server] [--no-client] [--skip <prefix>]... [--requirements <revision>]... ' +
    '[--concurrency N] [--timeout MS]';
  try {
    const { values } = parseArgs({
      options: {
        server: { type: 'boolean', default: false },
        'no-client': { type: 'boolean', default: false },
        skip: { type: 'string', multiple: true, default: [] },
        requirements: { type: 'string', multiple: true, default: REQUIREMENT_SETS },
        concurrency: { type: 'string', default: '3' },
        timeout: { type: 'string', default: '60000' },
        help: { type: 'boolean', default: false },
      },
    });
    if (values.help) {
      console.log(usage);
      process.exit(0);
    }
    const concurrency = Number(values.concurrency);
    const timeoutMs = Number(values.timeout);
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw new Error('--concurrency: 1 or more');
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1000)
      throw new Error('--timeout: 1000 ms or more');
    return {
      client: !values['no-client'],
      server: values.server,
      skip: values.skip.filter((prefix) => prefix.length > 0),
      sets: values.requirements,
      concurrency,
      timeoutMs,
    };
  } catch (error) {
    console.error(`${error.message}\n${usage}`);
    process.exit(2);
  }
}

/**
 * Runs the suite's CLI with `args` and resolves with its exit code (null when ended at the time
 * limit) and everything it printed.
 */
function conformance(args, timeoutMs) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: HERE,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    const timer = setTimeout(() => {
      output += `\nended after ${timeoutMs} ms\n`;
      killGroup(child.pid);
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** Ends a process started with `detached: true` and everything it started, by its group id. */
function killGroup(pid, signal = 'SIGKILL') {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/**
 * What a requirement set asks for, from `conformance list --requirements R`: the required client
 * and server scenarios, and those run but not scored (each with its kind and why).
 */
async function requirementSet(revision) {
  const { code, output } = await conformance(['list', '--requirements', revision], 30_000);
  if (code !== 0) throw new Error(`conformance list --requirements ${revision} failed:\n${output}`);
  const set = { revision, server: [], client: [], unscored: [] };
  let section = null;
  let category = null;
  for (const line of output.split('\n')) {
    if (/^Server scenarios/.test(line)) section = 'server';
    else if (/^Client scenarios/.test(line)) section = 'client';
    else if (/^Run and reported, but never scored/.test(line)) section = 'unscored';
    const heading = /^ {2}([\w-]+) \(\d+\):$/.exec(line);
    if (section === 'unscored' && heading) category = heading[1];
    const item = /^\s+- (\S+)(?: \[(client|server)\])?$/.exec(line);
    if (!item) continue;
    if (section === 'server' || section === 'client') set[section].push(item[1]);
    else if (section === 'unscored' && item[2]) {
      set.unscored.push({ name: item[1], kind: item[2], category });
    }
  }
  if (set.server.length + set.client.length === 0) {
    throw new Error(`conformance list --requirements ${revision} named no scenario:\n${output}`);
  }
  return set;
}

/**
 * Scenarios of the extensions Toolsys implements: the suite lists them as not scored (an
 * extension is optional), but they are scored here like required ones.
 */
const IMPLEMENTED_EXTENSION_SCENARIOS = [/^tasks-/];

/** Runs `jobs` (async functions) with at most `limit` at a time, keeping their order. */
async function pool(jobs, limit) {
  const results = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const index = next++;
      results[index] = await jobs[index]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
  return results;
}

/** Runs one scenario; `target` is the client command or the server URL. */
async function runScenario(scenario, revision, target, timeoutMs) {
  const args =
    scenario.kind === 'client'
      ? ['client', '--command', target, '--scenario', scenario.name]
      : ['server', '--url', target, '--scenario', scenario.name];
  args.push('--spec-version', revision, '--timeout', String(timeoutMs));
  if (scenario.forced === true) args.push('--force');
  const started = Date.now();
  const { code, output } = await conformance(args, timeoutMs + 15_000);
  const checks = /Passed: (\d+)\/(\d+)/.exec(output);
  return {
    ...scenario,
    passed: code === 0 && !/OVERALL: FAILED/.test(output),
    checks: checks ? `${checks[1]}/${checks[2]} checks` : 'no checks',
    ms: Date.now() - started,
    output,
  };
}

/** A free TCP port on 127.0.0.1. */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Starts `serve.mjs --port N` on a free port and resolves once its MCP endpoint answers over
 * HTTP (or with the URL it prints). Resolves with the URL and a stop function.
 */
async function startServer() {
  const port = await freePort();
  let url = `http://127.0.0.1:${port}/mcp`;
  const child = spawn(process.execPath, [SERVE, '--port', String(port)], {
    cwd: HERE,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let log = '';
  let exited = null;
  const onOutput = (chunk) => {
    log += chunk;
    const printed = /http:\/\/127\.0\.0\.1:\d+\/\S*/.exec(String(chunk));
    if (printed) url = printed[0];
  };
  child.stdout.on('data', onOutput);
  child.stderr.on('data', onOutput);
  child.on('exit', (code, signal) => {
    exited = signal ?? code;
  });
  const stop = async () => {
    if (exited !== null) return;
    killGroup(child.pid, 'SIGTERM');
    const deadline = Date.now() + 5000;
    while (exited === null && Date.now() < deadline) await delay(100);
    if (exited === null) killGroup(child.pid);
  };
  const deadline = Date.now() + SERVER_READY_MS;
  while (Date.now() < deadline) {
    if (exited !== null) throw new Error(`serve.mjs exited (${exited}) before it served:\n${log}`);
    try {
      await fetch(url, { method: 'GET', signal: AbortSignal.timeout(2000) });
      return { url, stop };
    } catch {
      await delay(250);
    }
  }
  await stop();
  throw new Error(`serve.mjs did not answer on ${url} within ${SERVER_READY_MS} ms:\n${log}`);
}

function delay(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The scenarios of one kind a set runs: required ones, then the unscored ones (report only). */
function scenariosOf(set, kind, skip) {
  const kept = (name) => !skip.some((prefix) => name.startsWith(prefix));
  return [
    ...set[kind].filter(kept).map((name) => ({ name, kind, required: true })),
    ...set.unscored
      .filter((entry) => entry.kind === kind && kept(entry.name))
      .map((entry) => ({
        name: entry.name,
        kind,
        required: IMPLEMENTED_EXTENSION_SCENARIOS.some((pattern) => pattern.test(entry.name)),
        forced: true,
        category: entry.category,
      })),
  ];
}

/** Prints one set's results and returns how many required scenarios failed. */
function report(revision, results, skipped) {
  const required = results.filter((result) => result.required);
  const failed = required.filter((result) => !result.passed);
  console.log(`\n=== ${revision} ===`);
  for (const kind of ['client', 'server']) {
    const ofKind = results.filter((result) => result.kind === kind);
    if (ofKind.length === 0) continue;
    console.log(`${kind} scenarios:`);
    for (const result of ofKind) {
      const mark = result.passed ? 'PASS' : result.required ? 'FAIL' : 'fail';
      const note = result.forced
        ? ` (${result.category}${result.required ? ', implemented: scored' : ', not scored'})`
        : '';
      console.log(`  ${mark}  ${result.name}${note}  [${result.checks}, ${result.ms} ms]`);
    }
  }
  const passedRequired = required.length - failed.length;
  console.log(
    `${revision}: ${passedRequired} of ${required.length} required scenarios passed, ` +
      `${failed.length} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`,
  );
  return failed.length;
}

/** Prints the suite's own output of each failed required scenario. */
function details(results) {
  for (const result of results.filter((r) => r.required && !r.passed)) {
    console.log(`\n--- ${result.revision} ${result.kind} ${result.name} ---`);
    console.log(
      stripVTControlCharacters(result.output)
        .split('\n')
        .filter((line) => !/DEP0190|--trace-deprecation/.test(line))
        .slice(-40)
        .join('\n'),
    );
  }
}

async function main() {
  const options_ = options();
  const major = Number(process.versions.node.split('.')[0]);
  if (major < MIN_NODE_MAJOR) {
    console.error(
      `The conformance suite needs Node.js >= ${MIN_NODE_MAJOR} (this is ${process.version}): ` +
        'run `bash scripts/setup.sh && . .cache/env.sh` first.',
    );
    process.exit(2);
  }
  if (options_.server && !existsSync(SERVE)) {
    console.error(`--server: ${SERVE} does not exist yet.`);
    process.exit(2);
  }
  const clientCommand = `'${process.execPath}' '${CLIENT}'`;
  const started = Date.now();
  const sets = [];
  for (const revision of options_.sets) sets.push(await requirementSet(revision));

  const server = options_.server ? await startServer() : null;
  const all = [];
  let failures = 0;
  try {
    for (const set of sets) {
      const jobs = [];
      let skipped = 0;
      for (const kind of ['client', 'server']) {
        if (kind === 'client' && !options_.client) continue;
        if (kind === 'server' && !server) continue;
        const scenarios = scenariosOf(set, kind, options_.skip);
        skipped += scenariosOf(set, kind, []).length - scenarios.length;
        const target = kind === 'client' ? clientCommand : server.url;
        for (const scenario of scenarios) {
          jobs.push(() => runScenario(scenario, set.revision, target, options_.timeoutMs));
        }
      }
      const results = (await pool(jobs, options_.concurrency)).map((result) => ({
        ...result,
        revision: set.revision,
      }));
      all.push(...results);
      failures += report(set.revision, results, skipped);
    }
  } finally {
    await server?.stop();
  }
  details(all);
  const seconds = Math.round((Date.now() - started) / 1000);
  console.log(
    `\nconformance: ${failures === 0 ? 'every required scenario passed' : `${failures} required scenario(s) failed`}` +
      ` (${options_.client ? 'client' : ''}${options_.client && server ? ' + ' : ''}${server ? 'server' : ''}` +
      `${options_.skip.length > 0 ? `, skipped ${options_.skip.join(' ')}` : ''}, ${seconds} s)`,
  );
  process.exit(failures === 0 ? 0 : 1);
}

await main();

import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  createToolExecutor,
  RiskAwareToolGate,
  renderResult,
  ToolPermissionManager,
  ToolRegistry,
} from '@toolsys/core-tool-registry';
import { createShellTools } from '@toolsys/core-tools';
import {
  buildSandboxArguments,
  probeCommandSandbox,
  runProcess,
  SANDBOX_LIMITS,
  sandboxProcessLimit,
} from '@toolsys/platform';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectResponsiveDuring } from './support/responsiveness.js';

/*
 * The command sandbox (auto-allowed shell commands, sandboxed terminal sessions, skill commands)
 * against a command that tries to read the host's secrets or to exhaust the host: the sandbox sees
 * only an allow-list of environment variables, a fork bomb meets a process limit, a /tmp filler
 * meets a size-limited tmpfs, and the host keeps answering meanwhile.
 */

const run = promisify(execFile);

/** Secrets whose variable names say nothing about a secret: only an allow-list keeps them out. */
const HOST_SECRETS: Record<string, string> = {
  REDIS_URL: 'redis://:redispass9f2@cache.internal:6379/0',
  BILLING_LIVE: 'sk_live_51HxAbCdEfGhIjKlMnOp7q',
  NOTIFY_HOOK: 'https://hooks.slack.com/services/T0001/B0001/abcdefghijklmnop',
  DISCORD_HOOK: 'https://discord.com/api/webhooks/123456789012345678/AbCdEfGhIjKlMnOpQrSt',
  DATABASE_CONNECTION: 'Server=db;User Id=sa;Password=dbpass7c1e;',
  MAILER: 'SG.abcdefghijklmnopqrstuv.ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij',
  PREVIEW_JWT: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZG1pbiJ9.c2lnbmF0dXJlLXZhbHVl',
  INNOCENT_LOOKING_SETTING: 'plain-value-not-on-the-allow-list',
};

let workspace: string;

/*
 * A server running as root where no pids cgroup can be created has no process limit in its
 * sandboxes (RLIMIT_NPROC does not bind root): the fork tests would only exhaust the runner there.
 */
const processLimit = await sandboxProcessLimit();
const itLimited = it.skipIf(processLimit === 'none');

beforeAll(async () => {
  const status = await probeCommandSandbox();
  if (!status.available) throw new Error(`the sandbox must be available here: ${status.reason}`);
  // The host's own environment holds them, as a deployment's would.
  Object.assign(process.env, HOST_SECRETS);
});

afterAll(() => {
  for (const name of Object.keys(HOST_SECRETS)) delete process.env[name];
});

beforeEach(async () => {
  workspace = await realpath(await mkdtemp(join(tmpdir(), 'toolsys-adv-core-sandbox-')));
  await mkdir(join(workspace, 'src'));
  await writeFile(join(workspace, 'src', 'a.txt'), 'inside\n');
});

afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

/** Runs a command in the sandbox exactly as a sandboxed terminal or skill command starts it. */
async function inSandbox(command: string, timeoutMs = 15_000) {
  const status = await probeCommandSandbox();
  const args = await buildSandboxArguments({
    workspaceRoot: workspace,
    cwd: workspace,
    executable: status.executable as string,
  });
  return runProcess({
    command,
    cwd: workspace,
    env: { ...(process.env as Record<string, string>) },
    timeoutMs,
    sandbox: { executable: status.executable as string, arguments: args },
  });
}

/** A host-side ping: starting a process must keep working and stay quick. */
const hostPing = () => run('/bin/true');

/**
 * Slack for the host ping: process start-up on a shared 2-core runner varies by a few hundred ms
 * on its own; an unlimited fork bomb stalled it for 15 s.
 */
const PING_SLACK_MS = 1_500;

/** Host processes whose command line contains `needle`. */
async function countProcesses(needle: string): Promise<number> {
  const entries = (await readdir('/proc')).filter((entry) => /^\d+$/.test(entry));
  const lines = await Promise.all(
    entries.map((entry) => readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')),
  );
  return lines.filter((line) => line.includes(needle)).length;
}

/** Samples {@link countProcesses} until `done` resolves; returns the most seen at once. */
async function peakProcesses(needle: string, done: Promise<unknown>): Promise<number> {
  let finished = false;
  void done.finally(() => {
    finished = true;
  });
  let peak = 0;
  while (!finished) {
    peak = Math.max(peak, await countProcesses(needle));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return peak;
}

describe('the environment inside the sandbox', () => {
  it('shell_execute running printenv unasked shows no host variable outside the allow-list', async () => {
    const registry = new ToolRegistry();
    const environment = { ...process.env, ...HOST_SECRETS };
    for (const tool of createShellTools({ workspaceRoot: workspace, environment })) {
      registry.register(tool);
    }
    const asked: unknown[] = [];
    const confirm = async (request: unknown) => {
      asked.push(request);
      return 'deny' as const;
    };
    const executor = createToolExecutor({
      registry,
      gate: new RiskAwareToolGate(new ToolPermissionManager({ confirm })),
      confirm,
    });
    const result = await executor.execute('shell_execute', { command: 'printenv' });
    expect(asked).toEqual([]);
    expect(result.ok && result.data).toMatchObject({ sandboxed: true });
    const text = renderResult(result);
    for (const [name, value] of Object.entries(HOST_SECRETS)) {
      expect(text, name).not.toContain(value);
      expect(text, name).not.toContain(`${name}=`);
    }
    expect(text).toContain('PATH=');
  });

  it('a sandbox started with the whole host environment still sees only the allow-list', async () => {
    const outcome = await inSandbox('printenv');
    for (const [name, value] of Object.entries(HOST_SECRETS)) {
      expect(outcome.stdout.text, name).not.toContain(value);
    }
    expect(outcome.stdout.text).toContain('HOME=/tmp');
  });
});

describe('resource limits inside the sandbox', () => {
  itLimited(
    'caps the number of processes',
    async () => {
      // Forks until the kernel refuses (bash itself would retry a refused fork for half a minute).
      const outcome = await inSandbox(
        `python3 -c 'import os, time
n = 0
for i in range(1000):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(30)
        os._exit(0)
    n += 1
print(n)'`,
      );
      const count = Number(outcome.stdout.text.trim());
      expect(count).toBeGreaterThan(10);
      expect(count).toBeLessThanOrEqual(SANDBOX_LIMITS.processes + 5);
    },
    30_000,
  );

  itLimited(
    'stops a fork bomb within the limit while the host keeps starting processes',
    async () => {
      const needle = `bomb_${Date.now()}`;
      let peak = 0;
      const outcome = await expectResponsiveDuring(
        async () => {
          const running = inSandbox(
            `${needle}() { ${needle} | ${needle} & }; ${needle}; sleep 4`,
            6_000,
          );
          peak = await peakProcesses(needle, running);
          return running;
        },
        hostPing,
        { slackMs: PING_SLACK_MS },
      );
      expect(outcome.durationMs).toBeLessThan(15_000);
      expect(peak).toBeGreaterThan(10);
      expect(peak).toBeLessThanOrEqual(SANDBOX_LIMITS.processes + 5);
      // The call's end takes every process of the sandbox with it.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await countProcesses(needle)).toBe(0);
    },
    30_000,
  );

  it('limits what /tmp can hold', async () => {
    const outcome = await expectResponsiveDuring(
      () =>
        inSandbox(
          `head -c ${SANDBOX_LIMITS.tmpBytes + 64 * 1024 * 1024} /dev/zero > /tmp/fill; echo status=$?; stat -c %s /tmp/fill`,
        ),
      hostPing,
      { slackMs: PING_SLACK_MS },
    );
    expect(outcome.stdout.text).not.toContain('status=0');
    const written = Number(outcome.stdout.text.trim().split('\n').at(-1));
    expect(written).toBeLessThanOrEqual(SANDBOX_LIMITS.tmpBytes);
    expect(outcome.stderr.text).toMatch(/No space left|File too large/);
  }, 30_000);

  it('ends a command whose output runs on and on', async () => {
    const status = await probeCommandSandbox();
    const outcome = await runProcess({
      command: 'yes',
      cwd: workspace,
      timeoutMs: 20_000,
      sandbox: {
        executable: status.executable as string,
        arguments: await buildSandboxArguments({
          workspaceRoot: workspace,
          cwd: workspace,
          executable: status.executable as string,
        }),
      },
    });
    expect(outcome.timedOut).toBe(false);
    expect(outcome.outputLimited).toBe(true);
    expect(outcome.durationMs).toBeLessThan(10_000);
  }, 30_000);
});

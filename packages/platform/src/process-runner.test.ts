import { existsSync } from 'node:fs';
import { readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { createTempDir, isAlive, removeTempDir } from '@toolsys/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunProcessOptions, runProcess, scrubEnvironment } from './process-runner.js';

let directory: string;

beforeEach(async () => {
  directory = await createTempDir('toolsys-process-');
});

afterEach(async () => {
  await removeTempDir(directory);
});

async function waitUntil(condition: () => boolean, attempts = 200): Promise<boolean> {
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return condition();
}

/** Runs `command` in the test folder with a 30 s timeout unless `options` say otherwise. */
function run(command: string, options: Partial<RunProcessOptions> = {}) {
  return runProcess({ command, cwd: directory, timeoutMs: 30_000, ...options });
}

describe('runProcess', () => {
  it('returns the exit code and both streams', async () => {
    const outcome = await run('echo out; echo err >&2; exit 3');
    expect(outcome.exitCode).toBe(3);
    expect(outcome.signal).toBeNull();
    expect(outcome.timedOut).toBe(false);
    expect(outcome.stdout).toEqual({
      text: 'out\n',
      totalBytes: 4,
      omittedBytes: 0,
      truncated: false,
    });
    expect(outcome.stderr.text).toBe('err\n');
  });

  it('runs in the given folder', async () => {
    const outcome = await run('pwd -P');
    expect(outcome.stdout.text.trim()).toBe(await realpath(directory));
  });

  it('streams output chunks as they arrive', async () => {
    const chunks: string[] = [];
    await run('printf a; printf b >&2; printf c', {
      onOutput: (stream, text) => chunks.push(`${stream}:${text}`),
    });
    expect(chunks.filter((chunk) => chunk.startsWith('stdout:')).join('')).toContain('a');
    expect(chunks.join('|')).toContain('stderr:b');
  });

  it('keeps the head and tail of long output and says how much was omitted', async () => {
    const outcome = await run(
      'printf "HEAD"; head -c 100000 /dev/zero | tr "\\0" x; printf "TAIL"',
      { maxOutputBytes: 1_000 },
    );
    expect(outcome.stdout.totalBytes).toBe(100_008);
    expect(outcome.stdout.truncated).toBe(true);
    expect(outcome.stdout.omittedBytes).toBe(99_008);
    expect(outcome.stdout.text.startsWith('HEADxxx')).toBe(true);
    expect(outcome.stdout.text.endsWith('xxxTAIL')).toBe(true);
    expect(outcome.stdout.text).toContain('[99008 bytes omitted]');
  });

  it('passes standard input', async () => {
    const outcome = await run('tr a-z A-Z', { stdin: 'shout' });
    expect(outcome.stdout.text).toBe('SHOUT');
  });

  it('gives an empty standard input when none is passed', async () => {
    const outcome = await run('cat; echo done');
    expect(outcome.stdout.text).toBe('done\n');
  });

  it('kills the whole process tree when the timeout passes', async () => {
    const pidFile = join(directory, 'grandchild.pid');
    const outcome = await run(`bash -c 'sleep 300 & echo $! > ${pidFile}; wait'`, {
      timeoutMs: 1_000,
      killGraceMs: 500,
    });
    expect(outcome.timedOut).toBe(true);
    expect(outcome.exitCode).toBeNull();
    const grandchild = Number((await readFile(pidFile, 'utf8')).trim());
    expect(await waitUntil(() => !isAlive(grandchild))).toBe(true);
  });

  it('kills a process that ignores SIGTERM with SIGKILL after the grace period', async () => {
    const outcome = await run("trap '' TERM; while true; do sleep 0.1; done", {
      timeoutMs: 500,
      killGraceMs: 300,
    });
    expect(outcome.timedOut).toBe(true);
    expect(outcome.signal).toBe('SIGKILL');
  });

  it('kills the tree when the signal aborts', async () => {
    const controller = new AbortController();
    const running = run('echo started; sleep 300', {
      timeoutMs: 60_000,
      signal: controller.signal,
      onOutput: () => controller.abort(),
    });
    const outcome = await running;
    expect(outcome.aborted).toBe(true);
    expect(outcome.timedOut).toBe(false);
    expect(outcome.exitCode).toBeNull();
  });

  it('ends background children when bash exits', async () => {
    const pidFile = join(directory, 'background.pid');
    const outcome = await run(`sleep 300 & echo $! > ${pidFile}`);
    expect(outcome.exitCode).toBe(0);
    const background = Number((await readFile(pidFile, 'utf8')).trim());
    expect(await waitUntil(() => !isAlive(background))).toBe(true);
  });

  it('returns soon after bash exits even when a process that left the session holds the output', async () => {
    const pidFile = join(directory, 'escaped.pid');
    // setsid puts sleep in a new session, out of reach of the group kill; it inherits stdout.
    const outcome = await run(`setsid bash -c 'echo $$ > ${pidFile}; exec sleep 300'`, {
      timeoutMs: 120_000,
    });
    try {
      expect(outcome.timedOut).toBe(false);
      expect(outcome.durationMs).toBeLessThan(60_000);
    } finally {
      // The escaped process may or may not have started before bash's group was killed.
      await waitUntil(() => existsSync(pidFile));
      const escaped = existsSync(pidFile) ? Number((await readFile(pidFile, 'utf8')).trim()) : 0;
      if (escaped > 0 && isAlive(escaped)) process.kill(escaped, 'SIGKILL');
    }
  }, 90_000);

  it('kills a process that left the session (setsid) when the timeout fires', async () => {
    const pidFile = join(directory, 'detached.pid');
    const outcome = await run(`setsid bash -c 'echo $$ > ${pidFile}; exec sleep 300' & sleep 300`, {
      timeoutMs: 1_500,
      killGraceMs: 500,
    });
    expect(await waitUntil(() => existsSync(pidFile))).toBe(true);
    const detached = Number((await readFile(pidFile, 'utf8')).trim());
    try {
      expect(outcome.timedOut).toBe(true);
      expect(await waitUntil(() => !isAlive(detached))).toBe(true);
    } finally {
      if (isAlive(detached)) process.kill(detached, 'SIGKILL');
    }
  }, 60_000);

  it('kills a process that left the session and holds the output when the command exits', async () => {
    const pidFile = join(directory, 'detached.pid');
    await run(`setsid -f bash -c 'echo $$ > ${pidFile}; exec sleep 300'; sleep 1`);
    expect(await waitUntil(() => existsSync(pidFile))).toBe(true);
    const detached = Number((await readFile(pidFile, 'utf8')).trim());
    try {
      expect(await waitUntil(() => !isAlive(detached))).toBe(true);
    } finally {
      if (isAlive(detached)) process.kill(detached, 'SIGKILL');
    }
  }, 60_000);

  it('rejects when the folder does not exist', async () => {
    await expect(
      runProcess({ command: 'true', cwd: join(directory, 'missing'), timeoutMs: 30_000 }),
    ).rejects.toThrow(/cannot start bash/);
  });

  it('scrubs secrets from the environment by default', async () => {
    const saved = process.env.TOOLSYS_TEST_API_KEY;
    process.env.TOOLSYS_TEST_API_KEY = 'sk-should-not-leak';
    try {
      const outcome = await runProcess({
        // biome-ignore lint/suspicious/noTemplateCurlyInString: bash parameter expansion.
        command: 'echo "key=${TOOLSYS_TEST_API_KEY:-unset} path=${PATH:+set}"',
        cwd: directory,
        timeoutMs: 30_000,
      });
      expect(outcome.stdout.text).toBe('key=unset path=set\n');
    } finally {
      if (saved === undefined) delete process.env.TOOLSYS_TEST_API_KEY;
      else process.env.TOOLSYS_TEST_API_KEY = saved;
    }
  });
});

describe('scrubEnvironment', () => {
  it('drops secrets and keeps the basics', () => {
    const basics = {
      PATH: '/usr/bin',
      HOME: '/home/me',
      LANG: 'C.UTF-8',
      TERM: 'xterm',
      LC_ALL: 'C',
      EDITOR: 'vi',
    };
    expect(
      scrubEnvironment({
        ...basics,
        GITHUB_TOKEN: 'ghp_x',
        NPM_TOKEN: 'npm_x',
        OPENAI_API_KEY: 'sk-x',
        MY_SECRET: 's',
        DB_PASSWORD: 'p',
        PGPASSWORD: 'p',
        AWS_ACCESS_KEY_ID: 'a',
        AWS_REGION: 'eu-west-1',
        SECRET_KEY_BASE: 'k',
        DATABASE_URL: 'postgres://user:hunter2@db/app',
        KEYBOARD: 'us',
        UNSET: undefined,
      }),
    ).toEqual({ ...basics, KEYBOARD: 'us' });
  });
});

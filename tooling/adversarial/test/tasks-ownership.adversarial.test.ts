import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type CallPrincipal,
  createToolExecutor,
  defineTool,
  successResult,
  ToolHints,
  ToolRegistry,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { runProcess } from '@toolsys/platform';
import { createTerminalTools, RootfsManager, TerminalManager } from '@toolsys/platform-terminal';
import { SqliteTaskStore, TaskErrorCode, TaskService } from '@toolsys/tasks';
import {
  createTempDir,
  isAlive,
  readPidFile,
  removeTempDir,
  waitForPidGone,
} from '@toolsys/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

/*
 * Issue 35: long calls as tasks. A task id is the only handle a client holds: another principal
 * (another OAuth subject, or the same name under another kind of credential) must get exactly the
 * answer of a task that never existed, whatever it tries; guessed and hostile ids reveal nothing;
 * a tool cannot store an unbounded result; and a tool that ignores its abort signal cannot keep
 * its processes alive past a cancel. Real SQLite file, real bash, real PTY.
 */

const alice: CallPrincipal = { id: 'alice', kind: 'oauth', scopes: [] };
const aliceToken: CallPrincipal = { id: 'alice', kind: 'token', scopes: ['*'] };
const mallory: CallPrincipal = { id: 'mallory', kind: 'oauth', scopes: [] };

let dir: string;
let service: TaskService;
let store: SqliteTaskStore;
let terminals: TerminalManager;
let rootfs: RootfsManager;

function pidFile(name: string): Promise<number> {
  return readPidFile(join(dir, name));
}

beforeEach(async () => {
  dir = await createTempDir('toolsys-tasks-adv-');
  await mkdir(join(dir, 'workspace'));
  rootfs = new RootfsManager({ baseDir: join(dir, 'rootfs') });
  terminals = new TerminalManager({
    workspaceRoot: join(dir, 'workspace'),
    rootfsDir: rootfs.directory('debian'),
  });
  const registry = new ToolRegistry();
  registry.registerAll(createTerminalTools({ manager: terminals, rootfs }));
  registry.registerAll([
    defineTool({
      id: 'hostile.spawn',
      description:
        'Starts bash (and a child that leaves its group), ignores its signal, never returns.',
      inputSchema: ToolSchema.object({}),
      metadata: {
        category: 'shell',
        risk: 'LOW',
        annotations: ToolHints.mutating,
        taskSupport: 'optional',
      },
      execute() {
        void runProcess({
          command: `trap '' TERM HUP; setsid sleep 300 & echo $! > ${join(dir, 'escaped')}; echo $$ > ${join(dir, 'hostile')}; while :; do sleep 1; done`,
          cwd: dir,
          timeoutMs: 600_000,
        });
        return new Promise<never>(() => {});
      },
    }),
    defineTool({
      id: 'hostile.huge',
      description: 'Returns 8 MB of multi-byte text, control characters and deep data.',
      inputSchema: ToolSchema.object({}),
      metadata: {
        category: 'shell',
        risk: 'LOW',
        annotations: ToolHints.readOnly,
        taskSupport: 'optional',
      },
      execute: () => {
        let deep: unknown = 'bottom';
        for (let i = 0; i < 200; i += 1) deep = { nested: deep, pad: '\u0001'.repeat(1000) };
        return successResult('\u{1F600}\u0000'.repeat(2_000_000), { data: { deep } });
      },
    }),
  ]);
  store = SqliteTaskStore.open({ path: join(dir, 'data', 'tasks.sqlite') });
  service = new TaskService({
    executor: createToolExecutor({ registry }),
    store,
    pollIntervalMs: 100,
  });
});

afterEach(async () => {
  await service.close();
  await store.close();
  await terminals.dispose();
  await rootfs.dispose();
  await removeTempDir(dir);
});

describe('tasks belong to the principal that created them', () => {
  it('another principal cannot get, read, cancel, answer or list a task, nor the same name under another credential', async () => {
    const task = await service.create('hostile.huge', {}, { principal: alice });
    await service.result(task.taskId, alice);
    for (const intruder of [mallory, aliceToken, undefined]) {
      for (const attempt of [
        () => service.get(task.taskId, intruder),
        () => service.result(task.taskId, intruder),
        () => service.cancel(task.taskId, intruder),
        () => service.answerInput(task.taskId, 'any', { action: 'accept' }, intruder),
      ]) {
        const error = await attempt().then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect(error).toMatchObject({ code: TaskErrorCode.NOT_FOUND });
        expect(String((error as Error).message)).not.toContain('alice');
      }
      expect((await service.list(intruder)).tasks).toEqual([]);
    }
    expect((await service.list(alice)).tasks).toHaveLength(1);
  });

  it('guessed, malformed and hostile ids are NOT_FOUND without reaching anything', async () => {
    const task = await service.create('hostile.huge', {}, { principal: alice });
    const guesses = [
      ...Array.from({ length: 500 }, () =>
        Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString('base64url'),
      ),
      `${task.taskId.slice(0, -1)}${task.taskId.endsWith('A') ? 'B' : 'A'}`,
      task.taskId.toLowerCase() === task.taskId
        ? task.taskId.toUpperCase()
        : task.taskId.toLowerCase(),
      `${task.taskId} `,
      "' OR 1=1 --",
      '%',
      '__proto__',
      '../../tasks.sqlite',
      'x'.repeat(1_000_000),
      '',
    ];
    for (const guess of guesses) {
      await expect(service.get(guess, mallory)).rejects.toMatchObject({
        code: TaskErrorCode.NOT_FOUND,
      });
      await expect(service.cancel(guess, alice)).rejects.toMatchObject({
        code: TaskErrorCode.NOT_FOUND,
      });
    }
    await expect(service.list(alice, { cursor: "' OR 1=1 --" })).rejects.toMatchObject({
      code: TaskErrorCode.INVALID_CURSOR,
    });
    expect((await service.get(task.taskId, alice)).task.taskId).toBe(task.taskId);
  });
});

describe('a task cannot outgrow its bounds or outlive its cancel', () => {
  it('a huge result is stored bounded in bytes', async () => {
    const task = await service.create('hostile.huge', {}, { principal: alice });
    const { task: done, result } = await service.result(task.taskId, alice);
    expect(done.status).toBe('completed');
    expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThanOrEqual(1_048_576);
    expect(result.ok && result.content).toContain('[Result cut');
  });

  it('a tool that ignores its signal is reported cancelled and its processes, even one that left its group, are killed within 2 s', async () => {
    const task = await service.create('hostile.spawn', {}, { principal: alice });
    const bash = await pidFile('hostile');
    const escaped = await pidFile('escaped');
    expect(isAlive(bash) && isAlive(escaped)).toBe(true);
    const cancelled = await service.cancel(task.taskId, alice);
    expect(cancelled.status).toBe('cancelled');
    await waitForPidGone(bash, 2_000);
    await waitForPidGone(escaped, 2_000);
    const { result } = await service.result(task.taskId, alice);
    expect(result).toMatchObject({ ok: false, error: { details: { cancelled: true } } });
  });

  it('cancelling terminal.run as a task ends its command on the real PTY within 2 s', async () => {
    const task = await service.create(
      'terminal.run',
      {
        command: `sleep 120 & echo $! > ${join(dir, 'pty-sleep')}; wait`,
        waitMs: 100_000,
        sandbox: false,
      },
      { principal: alice, confirm: async () => 'allow_once' },
    );
    const pid = await pidFile('pty-sleep');
    expect(isAlive(pid)).toBe(true);
    await service.cancel(task.taskId, alice);
    const took = await waitForPidGone(pid, 2_000);
    expect(took).toBeLessThan(2_000);
    expect((await service.get(task.taskId, alice)).task.status).toBe('cancelled');
  });
});

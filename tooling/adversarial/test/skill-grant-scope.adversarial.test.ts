import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfirmationRequest } from '@toolsys/core-tool-registry';
import { toolPackage as corePackage } from '@toolsys/core-tools';
import { composeDeployment, type Deployment, resolveDeploymentConfig } from '@toolsys/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Issue 30 item 3: a skill tool whose command is `sh -c {{script}}`, allowed "for this session"
// once, must not run another script unasked: a grant covers the exact rendered command, as
// shell_execute's confirmations do.

let scratch: string;
let deployment: Deployment | undefined;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-adv-skill-grant-'));
});

afterAll(async () => {
  await deployment?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('a skill grant covers the exact command (item 3)', { timeout: 60_000 }, () => {
  it('asks again when the rendered command differs, not when it is the same', async () => {
    const workspace = join(scratch, 'workspace');
    mkdirSync(workspace, { recursive: true });
    const config = resolveDeploymentConfig(
      { workspaceRoot: workspace, dataDir: join(scratch, 'data') },
      { cwd: workspace, env: {} },
    );
    const asked: ConfirmationRequest[] = [];
    deployment = await composeDeployment(config, {
      packages: [corePackage],
      confirm: async (request) => {
        asked.push(request);
        return 'allow_session';
      },
    });
    const { executor } = deployment;
    const session = { sessionId: 'skills' };
    const created = await executor.execute(
      'skill_create',
      {
        name: 'runner',
        description: 'Runs a script.',
        instructions: 'Call run_script with a script.',
        tools: [
          {
            name: 'run_script',
            description: 'Runs the script with sh.',
            input_schema: {
              type: 'object',
              properties: { script: { type: 'string' } },
              required: ['script'],
            },
            command: 'sh -c {{script}}',
            risk: 'LOW',
          },
        ],
      },
      session,
    );
    expect(created.ok, JSON.stringify(created)).toBe(true);
    asked.length = 0;

    const first = await executor.execute('run_script', { script: 'echo first' }, session);
    expect(first.ok && first.content).toBe('first');
    expect(asked.map((request) => request.action)).toEqual([
      `run_script (skill "runner") runs: sh -c 'echo first'`,
    ]);

    // The same command again: the session grant holds.
    await executor.execute('run_script', { script: 'echo first' }, session);
    expect(asked).toHaveLength(1);

    // Another script through the same tool is another command: the user is asked, and says no.
    asked.length = 0;
    const denyNext = await executor.execute(
      'run_script',
      { script: 'touch pwned' },
      {
        ...session,
        confirm: async (request) => {
          asked.push(request);
          return 'deny';
        },
      },
    );
    expect(asked.map((request) => request.action)).toEqual([
      `run_script (skill "runner") runs: sh -c 'touch pwned'`,
    ]);
    expect(denyNext.ok === false && denyNext.error.code).toBe('PERMISSION_DENIED');
    expect(existsSync(join(workspace, 'pwned'))).toBe(false);
  });
});

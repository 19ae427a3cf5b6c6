import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ConfirmationRequest,
  createToolExecutor,
  RiskAwareToolGate,
  ToolPermissionManager,
  ToolRegistry,
  type ToolResult,
} from '@toolsys/core-tool-registry';
import { createShellTools, createSkillTools, type ShellToolsOptions } from '@toolsys/core-tools';
import { probeCommandSandbox } from '@toolsys/platform';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createHarness,
  type Harness,
} from '../../../packages/platform-terminal/test/support/harness.js';

/*
 * Issue 30 item 6: commands the user approved received the server's secrets under neutral names
 * (MYSQL_PWD, AzureWebJobsStorage with AccountKey=, npm_/hf_/glpat- tokens, a base64
 * service-account JSON, an AWS secret under S3_SK, REDIS_PW, the server's own bearer token named by
 * --token-env). Item 7: a sandboxed terminal printed that bearer token, `TOOLSYS_*` being exempt
 * from the sandbox's unset list. Real bash (and real bubblewrap when it can start here).
 */

const sandbox = (await probeCommandSandbox()).available;

const SERVICE_ACCOUNT = Buffer.from(
  JSON.stringify({
    type: 'service_account',
    project_id: 'p',
    private_key_id: 'k1d',
    private_key: 'sa-private-key-7a81',
  }),
).toString('base64');

/** The server's environment: secrets under names no deny-list knows, and harmless settings. */
const SECRETS: Record<string, string> = {
  MYSQL_PWD: 'mysql-pwd-5e1c0d',
  AzureWebJobsStorage:
    'DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=azkey9QmZ1x2c3v4b5n6m7==;EndpointSuffix=core.windows.net',
  REGISTRY_AUTH_VALUE: 'npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8',
  HF_HUB: 'hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567',
  GL_PERSONAL: 'glpat-AbCdEfGhIjKlMnOpQrSt',
  SA_JSON: SERVICE_ACCOUNT,
  S3_SK: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY',
  REDIS_PW: 'redis-pw-0c7b55',
  TOOLSYS_BEARER: 'bearer-of-the-server-3f9e2a',
};
const HARMLESS = { JAVA_HOME: '/opt/jdk-test', LANG: 'C.UTF-8' };

function secretValuesIn(text: string): string[] {
  return Object.entries(SECRETS)
    .filter(([, value]) => text.includes(value) || text.includes(value.slice(0, 16)))
    .map(([name]) => name);
}

describe('approved shell commands get an allow-list of variables', () => {
  let base: string;
  let root: string;
  let asked: ConfirmationRequest[];

  beforeEach(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), 'approved-env-')));
    root = join(base, 'workspace');
    await mkdir(root, { recursive: true });
    asked = [];
  });

  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });

  function call(command: string, options: Partial<ShellToolsOptions>): Promise<ToolResult> {
    const registry = new ToolRegistry();
    for (const tool of createShellTools({ workspaceRoot: root, ...options })) {
      registry.register(tool);
    }
    const confirm = async (request: ConfirmationRequest) => {
      asked.push(request);
      return 'allow_once' as const;
    };
    const gate = new RiskAwareToolGate(new ToolPermissionManager({ confirm }));
    return createToolExecutor({ registry, gate, confirm }).execute('shell_execute', {
      command,
    });
  }

  it('a command the user approved sees none of the server’s secrets, whatever they are called', async () => {
    const result = await call('env; cat /proc/self/environ | tr "\\0" "\\n"', {
      environment: { ...process.env, ...SECRETS, ...HARMLESS },
      sandbox: 'off',
      // The deployment passes JAVA_HOME, and (wrongly) a password and the server's token.
      passEnvironment: ['JAVA_HOME', 'REDIS_PW', 'TOOLSYS_BEARER'],
    });
    expect(asked).toHaveLength(1);
    expect(result.ok).toBe(true);
    const stdout = result.ok ? (result.data as { stdout: string }).stdout : '';
    expect(secretValuesIn(stdout)).toEqual([]);
    expect(stdout).toContain('JAVA_HOME=/opt/jdk-test');
    expect(stdout).toContain('LANG=C.UTF-8');
    expect(stdout).toMatch(/^PATH=/m);
  });

  it.runIf(sandbox)(
    'a sandboxed command does not see the server’s TOOLSYS_* variables',
    async () => {
      const saved = process.env.TOOLSYS_BEARER;
      process.env.TOOLSYS_BEARER = SECRETS.TOOLSYS_BEARER;
      try {
        const result = await call('env', {});
        expect(asked).toHaveLength(0);
        expect(result.ok && (result.data as { sandboxed: boolean }).sandboxed).toBe(true);
        expect(secretValuesIn(result.ok ? result.content : '')).toEqual([]);
      } finally {
        if (saved === undefined) delete process.env.TOOLSYS_BEARER;
        else process.env.TOOLSYS_BEARER = saved;
      }
    },
  );
});

describe('approved skill tools get an allow-list of variables', () => {
  let base: string;
  const saved = Object.fromEntries(Object.keys(SECRETS).map((name) => [name, process.env[name]]));

  beforeEach(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), 'approved-skill-env-')));
    await mkdir(join(base, 'workspace'), { recursive: true });
    Object.assign(process.env, SECRETS);
  });

  afterEach(async () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await rm(base, { recursive: true, force: true });
  });

  it('a skill command the user approved sees none of the server’s secrets', async () => {
    const registry = new ToolRegistry();
    const asked: ConfirmationRequest[] = [];
    registry.registerAll(
      createSkillTools({
        directory: join(base, 'skills'),
        registry,
        workspaceRoot: join(base, 'workspace'),
        allowNpm: false,
      }),
      { owner: 'core' },
    );
    const executor = createToolExecutor({
      registry,
      confirm: async (request) => {
        asked.push(request);
        return 'allow_once';
      },
    });
    const created = await executor.execute('skill_create', {
      name: 'env-dumper',
      description: 'Shows its environment.',
      tools: [
        {
          name: 'show_env',
          description: 'Prints the environment.',
          input_schema: { type: 'object', properties: {} },
          command: 'sh -c env',
        },
      ],
    });
    expect(created.ok).toBe(true);
    const result = await executor.execute('show_env', {});
    expect(asked.some((request) => request.action.includes('sh -c env'))).toBe(true);
    expect(result.ok).toBe(true);
    expect(result.ok && result.content).toMatch(/PATH=/);
    expect(secretValuesIn(result.ok ? result.content : '')).toEqual([]);
  });
});

describe('terminal sessions get an allow-list of variables', () => {
  let harness: Harness | undefined;
  const saved = process.env.TOOLSYS_BEARER;

  afterEach(async () => {
    await harness?.dispose();
    harness = undefined;
    if (saved === undefined) delete process.env.TOOLSYS_BEARER;
    else process.env.TOOLSYS_BEARER = saved;
  });

  it('an approved (unsandboxed) session sees none of the server’s secrets', async () => {
    harness = await createHarness({
      manager: { environment: { ...process.env, ...SECRETS, ...HARMLESS } },
    });
    const run = await harness.data<{ output: string; completed: boolean }>('terminal.run', {
      command: 'env; tr "\\0" "\\n" < /proc/$$/environ',
    });
    expect(harness.asked.length).toBeGreaterThan(0);
    expect(run.completed).toBe(true);
    expect(secretValuesIn(run.output)).toEqual([]);
    expect(run.output).toContain('LANG=C.UTF-8');
  });

  it.runIf(sandbox)(
    'a sandboxed session does not see TOOLSYS_* variables of the server',
    async () => {
      process.env.TOOLSYS_BEARER = SECRETS.TOOLSYS_BEARER;
      // The deployment's environment, unscrubbed: only the sandbox's own allow-list stands.
      harness = await createHarness({ manager: { scrubEnvironment: false } });
      const run = await harness.data<{ output: string; completed: boolean }>('terminal.run', {
        command:
          'env; tr "\\0" "\\n" < /proc/$$/environ; printenv TOOLSYS_BEARER || echo "[unset]"',
        sandbox: true,
      });
      expect(harness.asked).toHaveLength(0);
      expect(run.completed).toBe(true);
      expect(secretValuesIn(run.output)).toEqual([]);
      expect(run.output).toContain('[unset]');
    },
  );
});

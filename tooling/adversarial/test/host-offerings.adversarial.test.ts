import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type CallPrincipal,
  defineTool,
  defineToolPackage,
  principalKey,
  successResult,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { toolPackage as corePackage } from '@toolsys/core-tools';
import { type Deployment, OfferingError } from '@toolsys/host';
import { toolPackage as terminalPackage } from '@toolsys/platform-terminal';
import { createTempDir, removeTempDir } from '@toolsys/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployHost } from './support/host.js';

/*
 * Issue 33, prompts and completion: what one principal made — artifacts its calls linked,
 * terminals it opened, shortcuts it defined — must not reach another through prompts/list,
 * prompts/get, completion/complete, resources/read or resources/subscribe, and hostile
 * arguments (huge, many, path traversal in completed paths) are refused cleanly. A real
 * deployment: the core and terminal packages (real bash on a PTY), a temp data dir.
 */

const alice: CallPrincipal = { id: 'alice', kind: 'token', scopes: ['*'] };
const bob: CallPrincipal = { id: 'bob', kind: 'token', scopes: ['*'] };
const asAlice = { principal: alice, sessionId: 'client-a' };
const asBob = { principal: bob, sessionId: 'client-b' };

/** A package whose prompt takes a terminal `sessionId`, a `path` and a `tool`, completed by name. */
const probe = defineToolPackage({
  name: '@toolsys/adversarial-offerings',
  key: 'adversarial-offerings',
  description: 'a prompt whose arguments the host completes',
  // Any object schema will do; the section is empty.
  configSchema: corePackage.configSchema,
  detect: () => ({ enabled: true, reason: 'test' }),
  create: () => ({
    tools: [],
    offerings: {
      prompts: [
        {
          name: 'inspect',
          arguments: [
            { name: 'sessionId', required: true },
            { name: 'path', required: false },
            { name: 'tool', required: false },
          ],
          render: (args) => [
            { role: 'user', content: { type: 'text', text: `Inspect ${args.sessionId}.` } },
          ],
        },
      ],
    },
  }),
});

/** A shortcut only Alice defined (the registry keeps the defining principal as `owner`). */
const aliceShortcut = defineTool({
  id: 'shortcut.alice_secret',
  description: "Alice's own shortcut.",
  inputSchema: ToolSchema.fromRendered({
    type: 'object',
    properties: { mode: { type: 'string', enum: ['fast', 'slow'] } },
    required: ['mode'],
  }),
  metadata: {
    category: 'orchestration',
    risk: 'LOW',
    tags: ['shortcut'],
    annotations: ToolHints.readOnly,
  },
  definedBy: principalKey(alice),
  execute: () => successResult('ok'),
});

let dir: string;
let deployment: Deployment;
let aliceTerminal: string;
const artifact = 'toolsys://data/shots/alice.txt';

beforeAll(async () => {
  dir = await createTempDir('toolsys-offerings-adv-');
  ({ deployment } = await deployHost(dir, {
    packages: [corePackage, terminalPackage, probe],
    config: { permissions: { LOW: 'allow', MEDIUM: 'allow', HIGH: 'allow' } },
  }));
  deployment.registry.register(aliceShortcut, { owner: 'shortcuts' });
  const created = await deployment.executor.execute(
    'terminal.create',
    {},
    {
      principal: alice,
      sessionId: asAlice.sessionId,
    },
  );
  if (!created.ok) throw new Error(created.error.message);
  aliceTerminal = (created.data as { sessionId: string }).sessionId;
  await mkdir(join(deployment.config.dataDir, 'shots'), { recursive: true });
  await writeFile(join(deployment.config.dataDir, 'shots', 'alice.txt'), "alice's page");
  deployment.artifacts.add({
    uri: artifact,
    relativePath: 'shots/alice.txt',
    name: 'alice.txt',
    mimeType: 'text/plain',
    size: 12,
    owner: principalKey(alice),
  });
  const workspace = deployment.config.workspaceRoot;
  await mkdir(join(workspace, 'src'));
  await writeFile(join(workspace, 'src', 'app.ts'), '');
  await mkdir(join(dir, 'outside'));
  await writeFile(join(dir, 'outside', 'secret.txt'), 'secret');
  await symlink(join(dir, 'outside'), join(workspace, 'escape'));
}, 60_000);

afterAll(async () => {
  await deployment?.close();
  if (dir) await removeTempDir(dir);
});

const complete = (
  ref: Parameters<Deployment['offerings']['complete']>[0],
  name: string,
  value: string,
  caller: typeof asAlice,
) => deployment.offerings.complete(ref, { name, value }, {}, caller);

async function refusal(promise: Promise<unknown>): Promise<OfferingError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(OfferingError);
  return error as OfferingError;
}

describe("another principal's artifacts", () => {
  it('reads as never linked for Bob, and as the file for Alice', async () => {
    expect(await deployment.offerings.readResource(artifact, asBob)).toBeUndefined();
    expect(await deployment.offerings.readResource(artifact, asAlice)).toEqual([
      { uri: artifact, mimeType: 'text/plain', text: "alice's page" },
    ]);
  });

  it('completes for Alice only', async () => {
    const ref = { type: 'ref/resource', uri: 'toolsys://data/{+path}' } as const;
    expect((await complete(ref, 'path', '', asAlice)).values).toEqual(['shots/alice.txt']);
    expect((await complete(ref, 'path', '', asBob)).values).toEqual([]);
    expect((await complete(ref, 'path', 'shots/', asBob)).values).toEqual([]);
  });

  it('cannot be subscribed to by Bob', async () => {
    const error = await refusal(deployment.offerings.subscribe(artifact, asBob, () => {}));
    expect(error.code).toBe('not_found');
  });
});

describe("another principal's handles", () => {
  const ref = { type: 'ref/prompt', name: 'inspect' } as const;

  it("completes a sessionId with the caller's own terminals only", async () => {
    expect((await complete(ref, 'sessionId', '', asAlice)).values).toEqual([aliceTerminal]);
    expect((await complete(ref, 'sessionId', '', asBob)).values).toEqual([]);
    expect((await complete(ref, 'sessionId', aliceTerminal.slice(0, 3), asBob)).values).toEqual([]);
    // Alice in another client session does not hold it either.
    const elsewhere = { principal: alice, sessionId: 'client-a2' };
    expect((await complete(ref, 'sessionId', '', elsewhere)).values).toEqual([]);
  });
});

describe("another principal's run-time prompts", () => {
  it('are not listed, got or completed for Bob', async () => {
    const names = (list: readonly { name: string }[]) => list.map((prompt) => prompt.name);
    expect(names(await deployment.offerings.listPrompts(asAlice))).toContain(
      'shortcut.alice_secret',
    );
    expect(names(await deployment.offerings.listPrompts(asBob))).not.toContain(
      'shortcut.alice_secret',
    );
    const error = await refusal(
      deployment.offerings.getPrompt('shortcut.alice_secret', { mode: 'fast' }, asBob),
    );
    expect(error.code).toBe('not_found');
    const ref = { type: 'ref/prompt', name: 'shortcut.alice_secret' } as const;
    expect((await complete(ref, 'mode', '', asAlice)).values).toEqual(['fast', 'slow']);
    expect((await complete(ref, 'mode', '', asBob)).values).toEqual([]);
  });

  it('completes tool ids without the tools Bob cannot see', async () => {
    const ref = { type: 'ref/prompt', name: 'inspect' } as const;
    expect((await complete(ref, 'tool', 'shortcut.', asAlice)).values).toEqual([
      'shortcut.alice_secret',
    ]);
    expect((await complete(ref, 'tool', 'shortcut.', asBob)).values).toEqual([]);
    expect((await complete(ref, 'tool', 'calc', asBob)).values).toEqual(['calculate']);
  });
});

describe('hostile arguments', () => {
  const ref = { type: 'ref/prompt', name: 'inspect' } as const;

  it('refuses a huge argument, too many arguments and unknown ones as invalid_params', async () => {
    const huge = await refusal(
      deployment.offerings.getPrompt('inspect', { sessionId: 'x'.repeat(5_000_000) }, asAlice),
    );
    expect(huge.code).toBe('invalid_params');
    expect(huge.message.length).toBeLessThan(300);
    const many = Object.fromEntries(
      Array.from({ length: 10_000 }, (_, index) => [`a${index}`, 'x']),
    );
    const crowd = await refusal(deployment.offerings.getPrompt('inspect', many, asAlice));
    expect(crowd.code).toBe('invalid_params');
    const unknown = await refusal(
      deployment.offerings.getPrompt(
        'inspect',
        { sessionId: 'x', ['y'.repeat(10_000)]: 'z' },
        asAlice,
      ),
    );
    expect(unknown.code).toBe('invalid_params');
    expect(unknown.message.length).toBeLessThan(300);
  });

  it('answers a huge unknown prompt name as not_found in a short message', async () => {
    const error = await refusal(deployment.offerings.getPrompt('p'.repeat(1_000_000), {}, asAlice));
    expect(error.code).toBe('not_found');
    expect(error.message.length).toBeLessThan(300);
  });

  it('refuses a huge completion value and a huge URI', async () => {
    expect((await refusal(complete(ref, 'path', 'a'.repeat(100_000), asAlice))).code).toBe(
      'invalid_params',
    );
    const uri = `test://${'u'.repeat(100_000)}`;
    expect((await refusal(deployment.offerings.readResource(uri, asAlice))).code).toBe(
      'invalid_params',
    );
  });

  it('completes paths inside the workspace only', async () => {
    expect((await complete(ref, 'path', 'src/', asAlice)).values).toEqual(['src/app.ts']);
    for (const value of [
      '../',
      '../outside/',
      'src/../../',
      '/etc/',
      '/',
      '~/',
      'escape/',
      'escape/secret',
      'src\\..\\..\\',
      'src/\u0000',
      '..',
    ]) {
      expect((await complete(ref, 'path', value, asAlice)).values, value).toEqual([]);
    }
  });
});

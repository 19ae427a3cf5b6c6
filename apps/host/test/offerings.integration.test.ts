// The deployment's offerings through the ServerOfferings interface: a real deployment (core
// package, shortcuts and skills written to a temp data dir), a package that offers prompts and
// resources, and artifacts linked in the data directory.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type CallPrincipal,
  defineToolPackage,
  invalidArgument,
  type OfferingChange,
  principalKey,
} from '@toolsys/core-tool-registry';
import { toolPackage as corePackage } from '@toolsys/core-tools';
import { createTempWorkspace, removeTempDir, type TempWorkspace } from '@toolsys/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { resolveDeploymentConfig } from '../src/config.js';
import { composeDeployment, type Deployment } from '../src/deployment.js';
import { artifactUri } from '../src/server/artifact-uri.js';
import { OfferingError } from '../src/server/offerings.js';

const alice: CallPrincipal = { id: 'alice', kind: 'token', scopes: ['*'] };
const bob: CallPrincipal = { id: 'bob', kind: 'token', scopes: ['*'] };
const asAlice = { principal: alice, sessionId: 'session-a' };
const asBob = { principal: bob, sessionId: 'session-b' };

let notify: (change: OfferingChange) => void = () => {};
const offering = defineToolPackage({
  name: '@test/offering',
  key: 'offering',
  description: 'offers a prompt, a resource and a template',
  configSchema: z.object({}).strict(),
  detect: () => ({ enabled: true, reason: 'always' }),
  create: () => ({
    tools: [],
    offerings: {
      prompts: [
        {
          name: 'review',
          description: 'Reviews a file.',
          arguments: [
            { name: 'file', required: true },
            { name: 'tone', description: 'kind or blunt' },
          ],
          render: (args) => {
            if (args.tone !== undefined && !['kind', 'blunt'].includes(args.tone)) {
              throw invalidArgument('tone', 'expected kind or blunt');
            }
            return [{ role: 'user', content: { type: 'text', text: `Review ${args.file}.` } }];
          },
          complete: (argument, value) =>
            argument === 'tone' ? ['kind', 'blunt'].filter((item) => item.startsWith(value)) : [],
        },
      ],
      resources: [
        {
          uri: 'test://notes',
          name: 'notes',
          description: 'Notes.',
          mimeType: 'text/plain',
          read: () => [{ uri: 'test://notes', mimeType: 'text/plain', text: 'hello' }],
        },
      ],
      resourceTemplates: [
        {
          uriTemplate: 'test://item/{id}',
          name: 'item',
          read: ({ id }, uri) =>
            id === 'missing' ? undefined : [{ uri, mimeType: 'text/plain', text: `item ${id}` }],
        },
      ],
      completers: [{ argument: 'id', complete: () => ['one', 'two', 'three'] }],
      onChange: (listener) => {
        notify = listener;
        return () => {
          notify = () => {};
        };
      },
    },
  }),
});

let workspace: TempWorkspace;
let deployment: Deployment;

beforeAll(async () => {
  workspace = await createTempWorkspace('toolsys-offerings-');
  await mkdir(join(workspace.root, 'src'));
  await writeFile(join(workspace.root, 'src', 'main.ts'), '');
  await writeFile(join(workspace.root, 'README.md'), '');
  const config = resolveDeploymentConfig(
    {
      dataDir: join(workspace.base, 'data'),
      workspaceRoot: workspace.root,
      permissions: { LOW: 'allow', MEDIUM: 'allow', HIGH: 'allow' },
    },
    { cwd: workspace.base, env: {} },
  );
  deployment = await composeDeployment(config, { packages: [corePackage, offering] });
});

afterAll(async () => {
  await deployment?.close();
  await removeTempDir(workspace.base);
});

/** Runs a tool as `principal` and expects it to succeed. */
async function run(id: string, args: unknown, principal: CallPrincipal = alice) {
  const result = await deployment.executor.execute(id, args, { sessionId: 's', principal });
  expect(result.ok, JSON.stringify(result)).toBe(true);
}

async function refusal(promise: Promise<unknown>): Promise<OfferingError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(OfferingError);
  return error as OfferingError;
}

describe('shortcuts and skills as prompts', () => {
  it('lists a shortcut once defined, telling listeners the prompt list changed', async () => {
    const changes: string[] = [];
    const stop = deployment.offerings.onListChanged((kind) => changes.push(kind));
    await run('shortcut_define', {
      definition: {
        id: 'shortcut.sum',
        description: 'Adds two numbers.',
        params: [
          { name: 'a', type: 'number', description: 'First.' },
          { name: 'loud', type: 'boolean', description: 'Shout.', default: false },
        ],
        steps: [
          { tool: 'calculate', args: { expression: '{a} + 1' } },
          { tool: 'text_transform', args: { text: '{0}', operation: '{loud}' } },
        ],
      },
    });
    stop();
    expect(changes).toContain('prompts');
    const prompts = await deployment.offerings.listPrompts(asAlice);
    expect(prompts.find((prompt) => prompt.name === 'shortcut.sum')).toMatchObject({
      name: 'shortcut.sum',
      arguments: [
        { name: 'a', description: 'First. (number)', required: true },
        { name: 'loud', description: 'Shout. (boolean)', required: false },
      ],
    });
  });

  it('renders the message that runs the shortcut, arguments converted to their types', async () => {
    const result = await deployment.offerings.getPrompt(
      'shortcut.sum',
      { a: '41', loud: 'true' },
      asAlice,
    );
    expect(result.messages).toEqual([
      {
        role: 'user',
        content: {
          type: 'text',
          text: 'Run the shortcut shortcut.sum: call the tool shortcut.sum with these arguments, then report its result.\n{\n  "a": 41,\n  "loud": true\n}',
        },
      },
    ]);
  });

  it('refuses a missing, unknown or mistyped argument as invalid_params naming it', async () => {
    const missing = await refusal(deployment.offerings.getPrompt('shortcut.sum', {}, asAlice));
    expect(missing.code).toBe('invalid_params');
    expect(missing.message).toContain('arguments.a: required');
    const unknown = await refusal(
      deployment.offerings.getPrompt('shortcut.sum', { a: '1', b: '2' }, asAlice),
    );
    expect(unknown.message).toContain('arguments.b: prompt shortcut.sum has no such argument');
    const typed = await refusal(
      deployment.offerings.getPrompt('shortcut.sum', { a: 'many' }, asAlice),
    );
    expect(typed.message).toBe('arguments.a: expected a number.');
  });

  it('lists an installed skill tool as a prompt', async () => {
    await run('skill_create', {
      name: 'word-count',
      description: 'Counts words.',
      tools: [
        {
          name: 'count_words',
          description: 'Counts the words of a file.',
          input_schema: {
            type: 'object',
            properties: { path: { type: 'string', description: 'The file.' } },
            required: ['path'],
          },
          command: 'wc -w {{path}}',
          read_only: true,
          risk: 'LOW',
        },
      ],
    });
    const prompts = await deployment.offerings.listPrompts(asAlice);
    // The skill's own tool is a prompt; the tools that manage skills are not.
    expect(
      prompts.map((prompt) => prompt.name).filter((name) => name.startsWith('skill_')),
    ).toEqual([]);
    expect(prompts.find((prompt) => prompt.name === 'count_words')).toMatchObject({
      title: 'Skill count_words',
      arguments: [{ name: 'path', description: 'The file. (string)', required: true }],
    });
  });

  it('answers not_found for a prompt nobody offers', async () => {
    const error = await refusal(deployment.offerings.getPrompt('calculate', {}, asAlice));
    expect(error.code).toBe('not_found');
  });
});

describe('completion', () => {
  it('completes a boolean parameter with true and false', async () => {
    const answer = await deployment.offerings.complete(
      { type: 'ref/prompt', name: 'shortcut.sum' },
      { name: 'loud', value: '' },
      {},
      asAlice,
    );
    expect(answer.values).toEqual(['false', 'true']);
  });

  it('completes a path argument with the workspace entries', async () => {
    const complete = (value: string) =>
      deployment.offerings.complete(
        { type: 'ref/prompt', name: 'count_words' },
        { name: 'path', value },
        {},
        asAlice,
      );
    expect((await complete('')).values).toEqual(['README.md', 'src/']);
    expect((await complete('src/m')).values).toEqual(['src/main.ts']);
  });

  it("uses the prompt's own completion, else the package's completer of that name", async () => {
    const tone = await deployment.offerings.complete(
      { type: 'ref/prompt', name: 'review' },
      { name: 'tone', value: 'b' },
      {},
      asAlice,
    );
    expect(tone).toEqual({ values: ['blunt'], total: 1, hasMore: false });
    const id = await deployment.offerings.complete(
      { type: 'ref/resource', uri: 'test://item/{id}' },
      { name: 'id', value: 't' },
      {},
      asAlice,
    );
    expect(id.values).toEqual(['two', 'three']);
  });

  it('answers no values for an unknown reference or argument', async () => {
    for (const ref of [
      { type: 'ref/prompt', name: 'nothing' },
      { type: 'ref/resource', uri: 'test://none/{x}' },
    ] as const) {
      const answer = await deployment.offerings.complete(
        ref,
        { name: 'x', value: '' },
        {},
        asAlice,
      );
      expect(answer.values).toEqual([]);
    }
  });
});

describe('package prompts and resources', () => {
  it('renders a package prompt, refusing a value its renderer refuses', async () => {
    const result = await deployment.offerings.getPrompt('review', { file: 'a.ts' }, asAlice);
    expect(result.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Review a.ts.' } },
    ]);
    const error = await refusal(
      deployment.offerings.getPrompt('review', { file: 'a.ts', tone: 'rude' }, asAlice),
    );
    expect(error).toMatchObject({
      code: 'invalid_params',
      message: 'tone: expected kind or blunt',
    });
  });

  it('lists and reads resources and templates; a missing one reads as undefined', async () => {
    expect(await deployment.offerings.listResources(asAlice)).toEqual([
      { uri: 'test://notes', name: 'notes', description: 'Notes.', mimeType: 'text/plain' },
    ]);
    const templates = await deployment.offerings.listResourceTemplates(asAlice);
    expect(templates.map((template) => template.uriTemplate)).toEqual([
      'test://item/{id}',
      'toolsys://data/{+path}',
    ]);
    expect(await deployment.offerings.readResource('test://item/42', asAlice)).toEqual([
      { uri: 'test://item/42', mimeType: 'text/plain', text: 'item 42' },
    ]);
    expect(await deployment.offerings.readResource('test://item/missing', asAlice)).toBeUndefined();
    expect(await deployment.offerings.readResource('test://nowhere', asAlice)).toBeUndefined();
  });

  it('tells a subscriber when its resource changes, until it unsubscribes', async () => {
    const updates: string[] = [];
    const stop = await deployment.offerings.subscribe('test://notes', asAlice, (uri) =>
      updates.push(uri),
    );
    notify({ kind: 'updated', uri: 'test://notes' });
    notify({ kind: 'updated', uri: 'test://item/1' });
    stop();
    notify({ kind: 'updated', uri: 'test://notes' });
    expect(updates).toEqual(['test://notes']);
    const error = await refusal(
      deployment.offerings.subscribe('test://nowhere', asAlice, () => {}),
    );
    expect(error.code).toBe('not_found');
  });
});

describe('artifacts', () => {
  it("reads and completes the caller's own artifacts through the template", async () => {
    await mkdir(join(deployment.config.dataDir, 'shots'), { recursive: true });
    await writeFile(join(deployment.config.dataDir, 'shots', 'home.txt'), 'a page');
    const uri = artifactUri('shots/home.txt');
    deployment.artifacts.add({
      uri,
      relativePath: 'shots/home.txt',
      name: 'home.txt',
      mimeType: 'text/plain',
      size: 6,
      owner: principalKey(alice),
    });
    expect(await deployment.offerings.readResource(uri, asAlice)).toEqual([
      { uri, mimeType: 'text/plain', text: 'a page' },
    ]);
    const answer = await deployment.offerings.complete(
      { type: 'ref/resource', uri: 'toolsys://data/{+path}' },
      { name: 'path', value: 'shots/' },
      {},
      asAlice,
    );
    expect(answer.values).toEqual(['shots/home.txt']);
    const stop = await deployment.offerings.subscribe(uri, asAlice, () => {});
    stop();
    // Another principal gets the answer of an artifact never linked.
    expect(await deployment.offerings.readResource(uri, asBob)).toBeUndefined();
  });
});

import { createHash } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type AnyToolDefinition,
  type ConfirmationRequest,
  createToolExecutor,
  isToolResult,
  type PipelineToolExecutor,
  RiskAwareToolGate,
  ToolPermissionManager,
  ToolRegistry,
  type ToolResult,
} from '@toolsys/core-tool-registry';
import { createTempWorkspace, removeTempDir, writeFiles } from '@toolsys/test-support';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCoreTools } from '../src/index.js';

/**
 * Property test over every core tool: random and adversarial arguments go through the real
 * executor with everything allowed except shell commands (the confirm answers `deny`, so no random
 * command runs; read-only allow-listed ones may). It asserts that nothing is thrown, every answer is
 * a ToolResult, and no file outside the workspace root — a sibling canary folder and the data
 * folder's parent — is created, changed or deleted.
 */

const RUNS_PER_TOOL = Number(process.env.TOOLSYS_FUZZ_RUNS ?? 30);
/** A call that has not answered by then is a hang, and a finding. */
const CALL_DEADLINE_MS = 15_000;
/** The caller cancels each call after this long (tools such as `wait` must honour it). */
const CANCEL_AFTER_MS = 500;

let base: string;
let workspace: string;
let dataDir: string;
let canary: string;
let registry: ToolRegistry;
let executor: PipelineToolExecutor;
const savedEnvironment: Record<string, string | undefined> = {};
/** npm must not reach the registry from a fuzzed skill_install: point it at a closed port. */
const NPM_ENVIRONMENT = {
  npm_config_registry: 'http://127.0.0.1:9/',
  npm_config_offline: 'true',
  npm_config_fetch_retries: '0',
  npm_config_fetch_timeout: '1000',
};

/** Every entry under `directory` (not following links), with a fingerprint of its content. */
async function snapshot(
  directory: string,
  skip: ReadonlySet<string>,
): Promise<Map<string, string>> {
  const entries = new Map<string, string>();
  const walk = async (current: string, prefix: string) => {
    const names = await readdir(current).catch(() => [] as string[]);
    for (const name of names.sort()) {
      const path = join(current, name);
      if (skip.has(path)) continue;
      const relative = `${prefix}${name}`;
      const stats = await lstat(path);
      if (stats.isDirectory()) {
        entries.set(relative, `dir:${stats.mode}`);
        await walk(path, `${relative}/`);
      } else if (stats.isFile()) {
        const hash = createHash('sha1')
          .update(await readFile(path))
          .digest('hex');
        entries.set(relative, `file:${stats.mode}:${stats.size}:${hash}`);
      } else {
        entries.set(relative, `other:${stats.mode}:${stats.mtimeMs}`);
      }
    }
  };
  await walk(directory, '');
  return entries;
}

async function outsideSnapshot(): Promise<Map<string, string>> {
  // The data folder's parent is `base`; the workspace and the data folder may change.
  return snapshot(base, new Set([workspace, dataDir]));
}

function callWithDeadline(id: string, args: unknown): Promise<ToolResult | 'hang'> {
  const signal = AbortSignal.timeout(CANCEL_AFTER_MS);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'hang'>((resolve) => {
    timer = setTimeout(() => resolve('hang'), CALL_DEADLINE_MS);
  });
  return Promise.race([
    executor.execute(id, args, { signal, sessionId: 'fuzz' }),
    deadline,
  ]).finally(() => clearTimeout(timer));
}

function adversarialPaths(): string[] {
  return [
    '../canary/victim.txt',
    '../canary/new.txt',
    '../canary',
    '../../etc/passwd',
    '/etc/passwd',
    '/etc',
    join(canary, 'victim.txt'),
    join(canary, 'created.txt'),
    canary,
    base,
    'escape/victim.txt',
    'escape/new.txt',
    'escape',
    'escape/../escape/victim.txt',
    'a/../../canary/victim.txt',
    '....//....//canary/victim.txt',
    '%2e%2e/canary/victim.txt',
    '..',
    '.',
    '',
    '~',
    '~/x',
    'x\0y',
    'notes.txt',
    'dir/sub/file.txt',
    'file.txt',
    '\\..\\canary\\victim.txt',
  ];
}

function adversarialStrings(): string[] {
  return [
    ...adversarialPaths(),
    'rm -rf /',
    `rm -rf ${canary}`,
    `touch ${join(canary, 'pwned')}`,
    `echo x > ${join(canary, 'victim.txt')}`,
    ':(){ :|:& };:',
    'ls',
    'cat /etc/hostname',
    '__proto__',
    'constructor',
    'prototype',
    '(a+)+$',
    `${'a'.repeat(50_000)}b`,
    'x'.repeat(200_000),
    '{"__proto__":{"polluted":true}}',
    '$.*',
    '//*',
    '* * * * *',
    'http://127.0.0.1:9/',
    'http://localhost:9/x',
    'file:///etc/passwd',
    'not a url',
    '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>',
    'a,b\n1,2\n',
    '\u202e\ud800\uffff',
    'null',
    '{}',
    '[]',
    'echo',
    'web_scrape',
    '../../../../../../tmp/escape-skill',
  ];
}

const JUNK_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
];

function junkValue(): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom<unknown>(...adversarialStrings()) },
    { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
    {
      weight: 2,
      arbitrary: fc.constantFrom<unknown>(
        -1,
        0,
        1,
        2,
        0.5,
        1e9,
        -1e9,
        2 ** 31,
        Number.MAX_SAFE_INTEGER,
        Number.NaN,
        Number.POSITIVE_INFINITY,
        true,
        false,
        null,
      ),
    },
    { weight: 1, arbitrary: fc.anything({ maxDepth: 3, maxKeys: 4 }) },
    {
      weight: 1,
      arbitrary: fc.constant(JSON.parse('{"__proto__":{"polluted":true},"a":[1,{"b":null}]}')),
    },
    {
      weight: 1,
      arbitrary: fc.array(fc.constantFrom<unknown>(...adversarialPaths(), 1, null), {
        maxLength: 4,
      }),
    },
  );
}

interface PropertySchema {
  type?: string | string[];
  enum?: unknown[];
  items?: PropertySchema;
  format?: string;
  minimum?: number;
  maximum?: number;
}

/** URLs for network tools: loopback on a closed port, or refused schemes; never another host. */
const URLS = [
  'http://127.0.0.1:9/',
  'http://localhost:9/x?a=1',
  'http://[::1]:9/',
  'https://127.0.0.1:9/',
  'file:///etc/passwd',
  'ftp://127.0.0.1:9/',
  'http://127.0.0.1:9/../../etc/passwd',
];

function valueFor(schema: PropertySchema): fc.Arbitrary<unknown> {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const options: fc.Arbitrary<unknown>[] = [junkValue()];
  if (schema.enum !== undefined && schema.enum.length > 0)
    options.push(fc.constantFrom(...schema.enum));
  if (types.includes('string')) {
    options.push(fc.constantFrom(...adversarialStrings()), fc.string({ maxLength: 30 }));
  }
  if (types.includes('integer') || types.includes('number')) {
    options.push(fc.integer({ min: -5, max: 50 }), fc.constantFrom(0, 1, 3, 1e6, -1));
  }
  if (types.includes('boolean')) options.push(fc.boolean());
  if (types.includes('array')) {
    options.push(
      fc.array(schema.items ? valueFor({ ...schema.items, items: undefined }) : junkValue(), {
        maxLength: 3,
      }),
    );
  }
  return fc.oneof(...options);
}

/** A value of the declared type (adversarial in content), so that calls pass validation. */
function typedValueFor(schema: PropertySchema, name = ''): fc.Arbitrary<unknown> {
  if (schema.enum !== undefined && schema.enum.length > 0) return fc.constantFrom(...schema.enum);
  if (name === 'url' || schema.format === 'uri') return fc.constantFrom(...URLS);
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const options: fc.Arbitrary<unknown>[] = [];
  if (types.includes('string')) {
    options.push(fc.constantFrom(...adversarialStrings()), fc.string({ maxLength: 30 }));
  }
  const bounds = [schema.minimum, schema.maximum].filter(
    (bound): bound is number => typeof bound === 'number' && Math.abs(bound) <= 1e7,
  );
  if (types.includes('integer'))
    options.push(fc.constantFrom(0, 1, 2, -1, 1e6, ...bounds), fc.nat(5));
  if (types.includes('number'))
    options.push(fc.constantFrom(0, 0.5, 1, -1, 1e6, ...bounds), fc.nat(5));
  if (types.includes('boolean')) options.push(fc.boolean());
  if (types.includes('array')) {
    options.push(
      fc.array(schema.items ? typedValueFor(schema.items) : junkValue(), { maxLength: 3 }),
    );
  }
  if (types.includes('object')) {
    options.push(
      fc.dictionary(fc.constantFrom('a', ...JUNK_KEYS), fc.constantFrom(...adversarialStrings()), {
        maxKeys: 3,
      }),
    );
  }
  return options.length === 0 ? junkValue() : fc.oneof(...options);
}

function argumentsFor(tool: AnyToolDefinition): fc.Arbitrary<unknown> {
  const schema = tool.inputSchema.jsonSchema as {
    properties?: Record<string, PropertySchema>;
    required?: string[];
  };
  const properties = Object.entries(schema.properties ?? {});
  const typed = fc.record(
    Object.fromEntries(
      properties.map(([name, property]) => [name, typedValueFor(property, name)]),
    ) as Record<string, fc.Arbitrary<unknown>>,
    {
      requiredKeys: (schema.required ?? []).filter(
        (name) => schema.properties?.[name] !== undefined,
      ),
    },
  );
  const guided = fc.record(
    Object.fromEntries(properties.map(([name, property]) => [name, valueFor(property)])) as Record<
      string,
      fc.Arbitrary<unknown>
    >,
    { requiredKeys: [] },
  );
  const withJunkKeys = fc
    .tuple(
      typed,
      fc.dictionary(fc.constantFrom(...JUNK_KEYS, 'extra'), junkValue(), { maxKeys: 2 }),
    )
    .map(([known, junk]) => ({ ...junk, ...(known as object) }));
  return fc.oneof(
    { weight: 6, arbitrary: typed },
    { weight: 2, arbitrary: guided },
    { weight: 1, arbitrary: withJunkKeys },
    { weight: 1, arbitrary: fc.anything({ maxDepth: 2 }) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>('{"path":', '[1,2]', 'null', 42, [], '') },
  );
}

beforeAll(async () => {
  for (const [name, value] of Object.entries(NPM_ENVIRONMENT)) {
    savedEnvironment[name] = process.env[name];
    process.env[name] = value;
  }
  ({
    base,
    root: workspace,
    outside: canary,
  } = await createTempWorkspace('toolsys-fuzz-', {
    outsideName: 'canary',
  }));
  dataDir = join(base, 'data');
  await mkdir(dataDir);
  await writeFiles(canary, { 'victim.txt': 'must not change\n' });
  await writeFiles(base, { 'sibling.txt': 'must not change either\n' });
  await writeFiles(workspace, {
    'file.txt': 'hello\nworld\n',
    'notes.txt': 'a,b\n1,2\n',
    'dir/sub/file.txt': 'nested\n',
  });
  // A link out of the workspace: any tool that follows it without checking writes into the canary.
  await symlink(canary, join(workspace, 'escape'));

  registry = new ToolRegistry();
  // Every call is allowed but shell commands: HIGH asks (an "allow" policy would answer the
  // shell's own per-command questions too), and the answer is yes for all but shell_execute.
  const confirm = async (request: ConfirmationRequest) =>
    request.toolId === 'shell_execute' ? 'deny' : 'allow_once';
  const permissions = new ToolPermissionManager({
    policy: { LOW: 'allow', MEDIUM: 'allow', HIGH: 'ask' },
    confirm,
  });
  executor = createToolExecutor({
    registry,
    gate: new RiskAwareToolGate(permissions),
    confirm,
  });
  for (const tool of createCoreTools({ workspaceRoot: workspace, dataDir, executor })) {
    registry.register(tool, { owner: 'fuzz' });
  }
});

afterAll(async () => {
  for (const [name, value] of Object.entries(savedEnvironment)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  if (base !== undefined) await removeTempDir(base);
});

describe('every core tool under random and adversarial arguments', () => {
  it('never throws, always answers a ToolResult and touches nothing outside the workspace', async () => {
    const tools = registry.list();
    expect(tools.length).toBeGreaterThan(10);
    const before = await outsideSnapshot();
    const findings: string[] = [];
    for (const tool of tools) {
      await fc.assert(
        fc.asyncProperty(argumentsFor(tool), async (args) => {
          let result: ToolResult | 'hang';
          try {
            result = await callWithDeadline(tool.id, args);
          } catch (error) {
            throw new Error(`${tool.id} threw ${String(error)}`);
          }
          if (result === 'hang')
            throw new Error(`${tool.id} did not answer within ${CALL_DEADLINE_MS} ms`);
          if (!isToolResult(result)) throw new Error(`${tool.id} answered a non-ToolResult`);
        }),
        { numRuns: RUNS_PER_TOOL },
      );
      const after = await outsideSnapshot();
      for (const [path, fingerprint] of after) {
        if (before.get(path) !== fingerprint)
          findings.push(`${tool.id} created or changed ${path}`);
      }
      for (const path of before.keys()) {
        if (!after.has(path)) findings.push(`${tool.id} deleted ${path}`);
      }
      if (findings.length > 0) break;
    }
    expect(findings).toEqual([]);
    expect(await readFile(join(canary, 'victim.txt'), 'utf8')).toBe('must not change\n');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  }, 300_000);

  it('notices a file created outside the workspace (a check of the detector itself)', async () => {
    const before = await outsideSnapshot();
    await writeFile(join(canary, 'probe.txt'), 'x');
    const after = await outsideSnapshot();
    await rm(join(canary, 'probe.txt'));
    expect(before.has('canary/probe.txt')).toBe(false);
    expect(after.has('canary/probe.txt')).toBe(true);
  });
});

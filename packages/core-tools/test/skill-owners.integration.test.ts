import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallPrincipal, createToolExecutor, ToolRegistry } from '@toolsys/core-tool-registry';
import { beforeEach, describe, expect, it } from 'vitest';
import { createSkillTools } from '../src/tools/skills/index.js';

const alice: CallPrincipal = { id: 'alice', kind: 'token', scopes: ['*'] };
const bob: CallPrincipal = { id: 'bob', kind: 'oauth', scopes: ['*'] };

let root: string;
let skillsDirectory: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'toolsys-skill-owners-'));
  skillsDirectory = join(root, 'skills');
  await mkdir(join(root, 'workspace'), { recursive: true });
  return () => rm(root, { recursive: true, force: true });
});

/** A registry with the skill tools over the test's skills folder (as after a restart when called again). */
function start() {
  const registry = new ToolRegistry();
  registry.registerAll(
    createSkillTools({
      directory: skillsDirectory,
      registry,
      workspaceRoot: join(root, 'workspace'),
      allowNpm: false,
    }),
    { owner: 'core' },
  );
  const executor = createToolExecutor({ registry, confirm: async () => 'allow_once' });
  const create = (principal: CallPrincipal | undefined, greeting: string) =>
    executor.execute(
      'skill_create',
      {
        name: 'greeter',
        description: 'Greets.',
        tools: [{ name: 'greet', description: 'Greets.', command: `printf '${greeting}'` }],
      },
      { principal },
    );
  const greet = async (principal: CallPrincipal | undefined) => {
    const result = await executor.execute('greet', {}, { principal });
    return result.ok ? result.content : result.error.code;
  };
  return { registry, executor, create, greet };
}

describe('a skill belongs to the principal that created it', () => {
  it('is unseen, unlisted and uncallable by another principal', async () => {
    const { executor, create, greet } = start();
    expect((await create(alice, 'alice')).ok).toBe(true);
    expect(await greet(alice)).toBe('alice');
    expect(await greet(bob)).toBe('NOT_FOUND');
    const listed = await executor.execute('skill_list', {}, { principal: bob });
    expect(listed.ok && listed.content).toMatch(/^No skills are installed/);
    const uninstall = await executor.execute(
      'skill_uninstall',
      { name: 'greeter' },
      { principal: bob },
    );
    expect(!uninstall.ok && uninstall.error.code).toBe('NOT_FOUND');
    expect(await greet(alice)).toBe('alice');
  });

  it('of the same name made by another principal is a second skill, never a replacement', async () => {
    const { create, greet } = start();
    await create(alice, 'alice');
    expect((await create(bob, 'bob')).ok).toBe(true);
    expect(await greet(alice)).toBe('alice');
    expect(await greet(bob)).toBe('bob');
    expect(await greet(undefined)).toBe('NOT_FOUND');
  });

  it('lies in its principal’s folder, named there, and comes back to it after a restart', async () => {
    await start().create(alice, 'alice');
    await start().create(undefined, 'local');
    const principals = join(skillsDirectory, '.principals');
    const [folder] = await readdir(principals);
    expect(folder).toMatch(/^[0-9a-f]{24}$/);
    expect(
      JSON.parse(await readFile(join(principals, `${folder}`, 'principal.json'), 'utf8')),
    ).toEqual({
      definedBy: 'token:alice',
    });
    expect(existsSync(join(principals, `${folder}`, 'greeter', 'SKILL.md'))).toBe(true);
    expect(existsSync(join(skillsDirectory, 'greeter', 'SKILL.md'))).toBe(true);
    const again = start();
    expect(await again.greet(alice)).toBe('alice');
    expect(await again.greet(undefined)).toBe('local');
    expect(await again.greet(bob)).toBe('NOT_FOUND');
  });

  it('is not loaded from a principal folder whose recorded key does not match its name', async () => {
    await start().create(alice, 'alice');
    const principals = join(skillsDirectory, '.principals');
    const [folder] = await readdir(principals);
    await writeFile(
      join(principals, `${folder}`, 'principal.json'),
      JSON.stringify({ definedBy: 'oauth:bob' }),
    );
    const again = start();
    expect(await again.greet(alice)).toBe('NOT_FOUND');
    expect(await again.greet(bob)).toBe('NOT_FOUND');
  });
});

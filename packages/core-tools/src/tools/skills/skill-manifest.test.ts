import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  parseSkillManifest,
  renderCommand,
  renderSkillManifest,
  shellQuote,
} from './skill-manifest.js';

const MANIFEST = `---
name: greeter
description: Greets people.
license: MIT
tools:
  - name: greet
    description: Prints a greeting.
    input_schema:
      type: object
      properties:
        name: { type: string }
    command: echo Hello {{name}}
    timeout_ms: 5000
    read_only: true
---

# Greeter

Say hello.
`;

describe('parseSkillManifest', () => {
  it('reads the front matter, the declared tools and the body', () => {
    expect(parseSkillManifest(MANIFEST)).toEqual({
      name: 'greeter',
      description: 'Greets people.',
      license: 'MIT',
      body: '# Greeter\n\nSay hello.',
      tools: [
        {
          name: 'greet',
          description: 'Prints a greeting.',
          inputSchema: { type: 'object', properties: { name: { type: 'string' } } },
          command: 'echo Hello {{name}}',
          timeoutMs: 5000,
          risk: 'MEDIUM',
          readOnly: true,
        },
      ],
    });
  });

  it('round-trips through renderSkillManifest', () => {
    const manifest = parseSkillManifest(MANIFEST);
    expect(parseSkillManifest(renderSkillManifest(manifest))).toEqual(manifest);
  });

  it.each([
    ['no front matter', '# just text', 'SKILL.md'],
    ['a bad name', '---\nname: Bad_Name\ndescription: x\n---\n', 'name'],
    ['a double hyphen', '---\nname: a--b\ndescription: x\n---\n', 'name'],
    ['no description', '---\nname: ok\n---\n', 'description'],
    ['tools not a list', '---\nname: ok\ndescription: x\ntools: 3\n---\n', 'tools'],
    [
      'a tool without command',
      '---\nname: ok\ndescription: x\ntools:\n  - name: t\n    description: d\n---\n',
      'tools.0.command',
    ],
    [
      'an unknown placeholder',
      '---\nname: ok\ndescription: x\ntools:\n  - name: t\n    description: d\n    command: echo {{nope}}\n---\n',
      'tools.0.command',
    ],
    [
      'a bad risk',
      '---\nname: ok\ndescription: x\ntools:\n  - name: t\n    description: d\n    command: ls\n    risk: EXTREME\n---\n',
      'tools.0.risk',
    ],
  ])('rejects %s naming the field', (_case, text, field) => {
    expect(() => parseSkillManifest(text)).toThrow(
      expect.objectContaining({
        code: 'INVALID_ARGUMENT',
        options: expect.objectContaining({ field }),
      }),
    );
  });

  it('accepts built-in placeholders', () => {
    const text =
      '---\nname: ok\ndescription: x\ntools:\n  - name: t\n    description: d\n    command: ls {{skill_dir}} {{workspace}}\n---\n';
    expect(parseSkillManifest(text).tools[0]?.command).toBe('ls {{skill_dir}} {{workspace}}');
  });
});

describe('renderCommand', () => {
  it('quotes each value as one word; arrays as several; missing as empty', () => {
    expect(
      renderCommand('run {{a}} {{b}} {{c}} {{d}} {{e}}', {
        a: "it's",
        b: ['x y', 2],
        c: true,
        d: { k: 1 },
      }),
    ).toBe(`run 'it'\\''s' 'x y' '2' 'true' '{"k":1}' ''`);
  });

  it('yields exactly the original string in bash for any input (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: 'binary', maxLength: 40 }).map((text) => text.replace(/\0/g, '')),
          { minLength: 1, maxLength: 30 },
        ),
        (values) => {
          const script = values.map((value) => `printf '%s\\0' ${shellQuote(value)}`).join('; ');
          const output = execFileSync('bash', ['-c', script], { encoding: 'utf8' });
          expect(output.split('\0').slice(0, -1)).toEqual(values);
        },
      ),
      { numRuns: 25 },
    );
  });
});

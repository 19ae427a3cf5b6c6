import { describe, expect, it } from 'vitest';
import { describeArguments } from './describe-arguments.js';

describe('describeArguments', () => {
  it('shows nested fields by their path, the ones that decide what runs first', () => {
    const described = describeArguments({
      name: 'lint',
      description: 'x'.repeat(10),
      tools: [{ name: 'run', risk: 'LOW', command: 'sh -c {{script}}' }],
    });
    expect(described).toEqual({
      ok: true,
      fields: 5,
      text: [
        'tools.0.risk: "LOW"',
        'tools.0.command: "sh -c {{script}}"',
        'name: "lint"',
        'description: "xxxxxxxxxx"',
        'tools.0.name: "run"',
      ].join('\n'),
    });
  });

  it('shows empty containers, numbers, booleans and null, and quotes odd keys', () => {
    expect(describeArguments({ a: [], b: {}, c: 1, d: false, e: null, 'x\ny': 's' })).toEqual({
      ok: true,
      fields: 6,
      text: 'a: []\nb: {}\nc: 1\nd: false\ne: null\n"x\\ny": "s"',
    });
  });

  it('treats a URL or an absolute path as decisive whatever its key', () => {
    const described = describeArguments({ note: 'hi', target2: 'http://127.0.0.1/exfil' });
    expect(described.ok && described.text).toBe('target2: "http://127.0.0.1/exfil"\nnote: "hi"');
  });

  it('gives decisive values a larger bound before shortening them', () => {
    const command = 'c'.repeat(1500);
    const described = describeArguments({ command, content: 'c'.repeat(1500) });
    expect(described.ok && described.text.split('\n')[0]).toBe(
      `command: ${JSON.stringify(command)}`,
    );
    expect(described.ok && described.text.split('\n')[1]).toMatch(/…".*" \(1500 characters\)$/);
  });

  it('refuses to describe a call deeper or wider than its bounds, or that refers to itself', () => {
    expect(describeArguments({ a: { b: { c: 1 } } }, { maxDepth: 2 })).toEqual({
      ok: false,
      reason: 'the arguments nest deeper than 2 levels',
    });
    expect(describeArguments({ a: 1, b: 2, c: 3 }, { maxFields: 2 })).toEqual({
      ok: false,
      reason: 'the call has more than 2 argument fields',
    });
    expect(describeArguments({ a: 'x'.repeat(50), b: 'y' }, { maxLength: 40 })).toEqual({
      ok: false,
      reason: 'the arguments take 62 characters to show, more than 40',
    });
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(describeArguments(loop)).toEqual({
      ok: false,
      reason: 'the arguments refer to themselves',
    });
  });

  it('says when there are no arguments', () => {
    expect(describeArguments({})).toEqual({ ok: true, text: '(no arguments)', fields: 0 });
    expect(describeArguments(undefined)).toEqual({
      ok: true,
      text: '(arguments): (undefined)',
      fields: 1,
    });
  });
});

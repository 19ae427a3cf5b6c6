import { describe, expect, it } from 'vitest';
import { ToolArguments } from './tool-arguments.js';
import { ToolError } from './tool-error.js';

function thrown(fn: () => unknown): ToolError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error('expected a ToolError');
}

describe('ToolArguments', () => {
  const args = new ToolArguments({
    path: 'a.txt',
    count: 3,
    ratio: 0.5,
    flag: true,
    options: { depth: 2, name: 7 },
    list: [1, 2],
    mode: 'fast',
  });

  it('reads typed values, including dotted paths', () => {
    expect(args.string('path')).toBe('a.txt');
    expect(args.integer('count')).toBe(3);
    expect(args.number('ratio')).toBe(0.5);
    expect(args.boolean('flag')).toBe(true);
    expect(args.number('options.depth')).toBe(2);
    expect(args.array('list')).toEqual([1, 2]);
    expect(args.oneOf('mode', ['fast', 'slow'])).toBe('fast');
    expect(args.optionalString('missing', 'fallback')).toBe('fallback');
  });

  it('gives INVALID_ARGUMENT naming the path of a missing field', () => {
    const error = thrown(() => args.string('target'));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.options.field).toBe('target');
    expect(error.message).toBe('target: required (expected string)');
  });

  it('gives INVALID_ARGUMENT naming the path of a mistyped field', () => {
    const error = thrown(() => args.string('options.name'));
    expect(error.options.field).toBe('options.name');
    expect(error.message).toBe('options.name: expected string, received number');
    expect(thrown(() => args.integer('ratio')).message).toBe(
      'ratio: expected integer, received number',
    );
    expect(thrown(() => args.oneOf('mode', ['slow'])).message).toBe(
      'mode: expected one of slow, received "fast"',
    );
  });

  it('treats a non-object as empty arguments', () => {
    expect(new ToolArguments('junk').has('x')).toBe(false);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compileFastAcceptor } from './schema-fast-path.js';
import { ToolSchema } from './tool-schema.js';

/**
 * Same values and the same key order, all the way down (what `toStrictEqual` leaves out), for
 * both ways the acceptor runs: generated code and plain closures. True when both accepted.
 */
function expectSameAsZod(schema: z.ZodType, input: unknown): boolean {
  const decisions: boolean[] = [];
  for (const codegen of [true, false]) {
    const accept = compileFastAcceptor(schema, { codegen });
    if (!accept) throw new Error('expected an acceptor');
    const fast = accept(input);
    decisions.push(fast !== undefined);
    if (fast === undefined) continue;
    const parsed = schema.safeParse(input);
    expect(parsed.success, `zod refused what the fast path accepted: ${show(input)}`).toBe(true);
    expect(fast).toStrictEqual(parsed.data);
    expect(shapeOf(fast)).toEqual(shapeOf(parsed.data));
  }
  expect(decisions[0], 'generated and closure checks decided alike').toBe(decisions[1]);
  return decisions[0] === true;
}

function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shapeOf);
  if (typeof value !== 'object' || value === null) return value;
  return Object.keys(value).map((key) => [key, shapeOf((value as Record<string, unknown>)[key])]);
}

function show(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

describe('compileFastAcceptor', () => {
  it('returns what zod returns for the common argument shapes', () => {
    const schema = z.looseObject({
      server: z.string().min(1),
      tool: z.string().min(1),
      arguments: z.record(z.string(), z.unknown()).default({}),
      timeoutMs: z.number().int().min(1).max(300_000).optional(),
    });
    expect(expectSameAsZod(schema, { server: 's', tool: 't', arguments: { a: 1 } })).toBe(true);
    expect(expectSameAsZod(schema, { tool: 't', server: 's', extra: [1], timeoutMs: 5 })).toBe(
      true,
    );
    // The default is filled as zod fills it, a fresh object each time.
    const accept = compileFastAcceptor(schema);
    const first = accept?.({ server: 's', tool: 't' }) as { arguments: object };
    const second = accept?.({ server: 's', tool: 't' }) as { arguments: object };
    expect(first.arguments).toEqual({});
    expect(first.arguments).not.toBe(second.arguments);
  });

  it('never accepts what zod refuses, and leaves every failure to zod', () => {
    const schema = z.looseObject({ name: z.string().min(1), count: z.number().int().optional() });
    for (const input of [
      {},
      { name: '' },
      { name: 1 },
      { name: 'a', count: 1.5 },
      { name: 'a', count: Number.NaN },
      { name: 'a', count: Number.POSITIVE_INFINITY },
      { name: 'a', count: 2 ** 53 },
      null,
      [],
      'name',
      new (class Args {
        name = 'a';
      })(),
    ]) {
      for (const codegen of [true, false]) {
        expect(compileFastAcceptor(schema, { codegen })?.(input), show(input)).toBeUndefined();
      }
    }
  });

  it('measures string lengths in code points, as zod does', () => {
    const schema = z.looseObject({ text: z.string().min(2).max(3) });
    const face = '\u{1F600}';
    expect(expectSameAsZod(schema, { text: `${face}a` })).toBe(true);
    expect(expectSameAsZod(schema, { text: `${face}${face}${face}` })).toBe(true);
    expect(compileFastAcceptor(schema)?.({ text: face })).toBeUndefined();
    expect(compileFastAcceptor(schema)?.({ text: `${face}${face}${face}${face}` })).toBeUndefined();
  });

  it('keeps, drops or refuses unknown keys as the object mode says', () => {
    const shape = { a: z.string() };
    expect(expectSameAsZod(z.looseObject(shape), { b: 1, a: 'x', c: undefined })).toBe(true);
    expect(expectSameAsZod(z.object(shape), { b: 1, a: 'x' })).toBe(true);
    expect(compileFastAcceptor(z.strictObject(shape))?.({ b: 1, a: 'x' })).toBeUndefined();
    expect(expectSameAsZod(z.strictObject(shape), { a: 'x' })).toBe(true);
    // A __proto__ key from JSON is never copied into the result.
    expect(expectSameAsZod(z.looseObject(shape), JSON.parse('{"a":"x","__proto__":{"p":1}}'))).toBe(
      true,
    );
  });

  it('compiles nothing for what it cannot mirror exactly', () => {
    for (const field of [
      z.string().trim(),
      z.string().email(),
      z.string().regex(/a/),
      z.string().refine(() => true),
      z.string().transform((value) => value.length),
      z.union([z.string(), z.number()]),
      z.coerce.number(),
      z.number().multipleOf(2),
      z.string().default('x').optional(),
      z.date(),
    ]) {
      expect(compileFastAcceptor(z.looseObject({ field }))).toBeUndefined();
    }
    expect(compileFastAcceptor(z.looseObject({}).refine(() => true))).toBeUndefined();
    expect(compileFastAcceptor(z.string() as z.ZodType)).toBeUndefined();
  });
});

/** A random schema description, built into zod and into a generator of inputs for it. */
type Desc =
  | { kind: 'string'; min: number; max: number | undefined }
  | { kind: 'number'; int: boolean; min: number | undefined; exclusive: boolean }
  | { kind: 'boolean' }
  | { kind: 'unknown' }
  | { kind: 'enum'; values: string[] }
  | { kind: 'optional' | 'nullable'; inner: Desc }
  | { kind: 'default'; inner: Desc; value: string }
  | { kind: 'array'; element: Desc; max: number | undefined }
  | { kind: 'record'; value: Desc }
  | { kind: 'object'; mode: 'loose' | 'strip' | 'strict'; fields: [string, Desc][] };

const KEYS = ['a', 'b', 'name', 'path', '0', 'x y'];

const descArbitrary: fc.Arbitrary<Desc> = fc.letrec<{ desc: Desc }>((tie) => ({
  desc: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({
      kind: fc.constant('string' as const),
      min: fc.nat(3),
      max: fc.option(fc.integer({ min: 3, max: 6 }), { nil: undefined }),
    }),
    fc.record({
      kind: fc.constant('number' as const),
      int: fc.boolean(),
      min: fc.option(fc.integer({ min: -2, max: 2 }), { nil: undefined }),
      exclusive: fc.boolean(),
    }),
    fc.constant({ kind: 'boolean' as const }),
    fc.constant({ kind: 'unknown' as const }),
    fc.record({
      kind: fc.constant('enum' as const),
      values: fc.uniqueArray(fc.constantFrom('r', 'w', 'x', ''), { minLength: 1 }),
    }),
    fc.record({
      kind: fc.constantFrom('optional' as const, 'nullable' as const),
      inner: tie('desc'),
    }),
    fc.record({ kind: fc.constant('default' as const), inner: tie('desc'), value: fc.string() }),
    fc.record({
      kind: fc.constant('array' as const),
      element: tie('desc'),
      max: fc.option(fc.nat(3), { nil: undefined }),
    }),
    fc.record({ kind: fc.constant('record' as const), value: tie('desc') }),
    fc.record({
      kind: fc.constant('object' as const),
      mode: fc.constantFrom('loose' as const, 'strip' as const, 'strict' as const),
      fields: fc.uniqueArray(fc.tuple(fc.constantFrom(...KEYS), tie('desc')), {
        maxLength: 4,
        selector: ([key]) => key,
      }),
    }),
  ),
})).desc;

function build(desc: Desc): z.ZodType {
  switch (desc.kind) {
    case 'string': {
      let schema = z.string().min(desc.min);
      if (desc.max !== undefined) schema = schema.max(desc.max);
      return schema;
    }
    case 'number': {
      let schema = desc.int ? z.number().int() : z.number();
      if (desc.min !== undefined)
        schema = desc.exclusive ? schema.gt(desc.min) : schema.min(desc.min);
      return schema;
    }
    case 'boolean':
      return z.boolean();
    case 'unknown':
      return z.unknown();
    case 'enum':
      return z.enum(desc.values as [string, ...string[]]);
    case 'optional':
      return build(desc.inner).optional();
    case 'nullable':
      return build(desc.inner).nullable();
    case 'default':
      // zod checks nothing about a default value; any string will do.
      return build(desc.inner).default(desc.value as never);
    case 'array': {
      const schema = z.array(build(desc.element));
      return desc.max === undefined ? schema : schema.max(desc.max);
    }
    case 'record':
      return z.record(z.string(), build(desc.value));
    case 'object': {
      const shape = Object.fromEntries(desc.fields.map(([key, field]) => [key, build(field)]));
      return desc.mode === 'loose'
        ? z.looseObject(shape)
        : desc.mode === 'strict'
          ? z.strictObject(shape)
          : z.object(shape);
    }
  }
}

/** Inputs that are often valid, often nearly valid, sometimes anything at all. */
function inputFor(desc: Desc, depth = 0): fc.Arbitrary<unknown> {
  const noise = fc.oneof(
    fc.constant(undefined),
    fc.constant(null),
    fc.anything({ maxDepth: 1, withNullPrototype: true }),
  );
  const likely = likelyFor(desc, depth);
  return fc.oneof({ weight: 6, arbitrary: likely }, { weight: 1, arbitrary: noise });
}

function likelyFor(desc: Desc, depth: number): fc.Arbitrary<unknown> {
  switch (desc.kind) {
    case 'string':
      return fc.oneof(
        fc.string({ maxLength: 7 }),
        fc.string({ unit: 'grapheme', maxLength: 4 }),
        fc.constantFrom('\u{1F600}', '\u{1F600}\u{1F600}', '\uD800', 'ab\u{1F600}'),
      );
    case 'number':
      return fc.oneof(
        fc.integer({ min: -3, max: 3 }),
        fc.double(),
        fc.constantFrom(2 ** 53, -0, Number.NaN, Number.POSITIVE_INFINITY),
      );
    case 'boolean':
      return fc.boolean();
    case 'unknown':
      return fc.anything({ maxDepth: 1 });
    case 'enum':
      return fc.constantFrom(...desc.values, 'other');
    case 'optional':
    case 'nullable':
    case 'default':
      return fc.oneof(inputFor(desc.inner, depth), fc.constant(undefined), fc.constant(null));
    case 'array':
      return fc.array(inputFor(desc.element, depth + 1), { maxLength: 4 });
    case 'record':
      return fc.dictionary(fc.constantFrom(...KEYS, '__proto__'), inputFor(desc.value, depth + 1), {
        maxKeys: 4,
      });
    case 'object': {
      const fields = Object.fromEntries(
        desc.fields.map(([key, field]) => [key, inputFor(field, depth + 1)]),
      );
      return fc
        .tuple(
          fc.record(fields, { requiredKeys: [] }),
          fc.dictionary(
            fc.constantFrom('extra', 'more', '__proto__'),
            fc.anything({ maxDepth: 1 }),
            {
              maxKeys: 2,
            },
          ),
          fc.boolean(),
        )
        .map(([known, extra, extraFirst]) =>
          extraFirst ? { ...extra, ...known } : { ...known, ...extra },
        );
    }
  }
}

describe('compileFastAcceptor against zod (property)', () => {
  it('accepts only what zod accepts, and returns exactly what zod returns', () => {
    let accepted = 0;
    let tried = 0;
    fc.assert(
      fc.property(
        descArbitrary
          .filter((desc) => desc.kind !== 'object')
          .map((desc): Desc => ({ kind: 'object', mode: 'loose', fields: [['a', desc]] }))
          .chain((desc) =>
            fc.tuple(fc.constant(desc), fc.array(inputFor(desc), { minLength: 1, maxLength: 5 })),
          ),
        ([desc, inputs]) => {
          const schema = build(desc);
          // Declined at compile time (an optional default): nothing to compare.
          if (!compileFastAcceptor(schema)) return;
          for (const input of inputs) {
            tried += 1;
            if (expectSameAsZod(schema, input)) accepted += 1;
          }
        },
      ),
      { numRuns: 600 },
    );
    // The fast path has to actually fire, or the test proves nothing.
    expect(accepted).toBeGreaterThan(tried / 10);
  });

  it('gives ToolSchema.parse the same results as before, failures included', () => {
    fc.assert(
      fc.property(
        fc
          .uniqueArray(fc.tuple(fc.constantFrom(...KEYS), descArbitrary), {
            maxLength: 4,
            selector: ([key]) => key,
          })
          .map((fields): Desc => ({ kind: 'object', mode: 'loose', fields }))
          .chain((desc) => fc.tuple(fc.constant(desc), inputFor(desc))),
        ([desc, input]) => {
          const shape = Object.fromEntries(
            (desc as Extract<Desc, { kind: 'object' }>).fields.map(([key, field]) => [
              key,
              build(field),
            ]),
          );
          const parsed = ToolSchema.object(shape).parse(input);
          const reference = z.looseObject(shape).safeParse(input);
          expect(parsed.ok).toBe(reference.success);
          if (parsed.ok && reference.success) {
            expect(parsed.value).toStrictEqual(reference.data);
            expect(shapeOf(parsed.value)).toEqual(shapeOf(reference.data));
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});

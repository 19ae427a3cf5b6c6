import type { ToolResult } from '@toolsys/core-tool-registry';
import { createToolExecutor, ToolRegistry } from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { createUtilityTools } from './index.js';

const registry = new ToolRegistry();
registry.registerAll(createUtilityTools(), { owner: 'test' });
const executor = createToolExecutor({ registry });

function call(id: string, args: Record<string, unknown>): Promise<ToolResult> {
  return executor.execute(id, args);
}

describe('calculate', () => {
  it('evaluates arithmetic with operator precedence', async () => {
    expect(await call('calculate', { expression: '2+3*4' })).toEqual({
      ok: true,
      content: '14',
      data: { expression: '2+3*4', result: '14', value: 14 },
    });
  });

  it('evaluates functions, constants and factorials', async () => {
    expect(await call('calculate', { expression: 'sqrt(2)^2' })).toMatchObject({ content: '2' });
    expect(await call('calculate', { expression: 'sin(pi/6)' })).toMatchObject({ content: '0.5' });
    expect(await call('calculate', { expression: '5!' })).toMatchObject({ content: '120' });
    expect(await call('calculate', { expression: 'log(1000, 10)' })).toMatchObject({
      content: '3',
    });
  });

  it('is exact for integers up to 64 digits and writes them in full', async () => {
    expect(await call('calculate', { expression: 'isPrime(2^61-1)' })).toMatchObject({
      ok: true,
      content: 'true',
    });
    expect(await call('calculate', { expression: '2^61-1' })).toMatchObject({
      content: '2305843009213693951',
      data: { result: '2305843009213693951' },
    });
    expect(await call('calculate', { expression: 'mod(2^64+1, 7)' })).toMatchObject({
      content: '3',
    });
    expect(await call('calculate', { expression: '30!' })).toMatchObject({
      content: '265252859812191058636308480000000',
    });
    expect(await call('calculate', { expression: '0.1+0.2' })).toMatchObject({ content: '0.3' });
  });

  it('says plainly when an integer result may not be exact', async () => {
    expect(await call('calculate', { expression: '2^300 + 1' })).toMatchObject({
      ok: true,
      content: '2.0370359763345e+90 (may not be exact: only 64 significant digits are kept)',
    });
  });

  it('falls back to floating point for a function without decimal support', async () => {
    expect(await call('calculate', { expression: 'gamma(0.5)' })).toMatchObject({
      ok: true,
      content: '1.7724538509055',
    });
  });

  it('converts units inside expressions', async () => {
    expect(await call('calculate', { expression: '10 inch to cm' })).toMatchObject({
      ok: true,
      content: '25.4 cm',
    });
  });

  it('rounds to the requested precision', async () => {
    expect(await call('calculate', { expression: '1/3', precision: 3 })).toMatchObject({
      content: '0.333',
    });
  });

  it('keeps no variables between calls', async () => {
    expect(await call('calculate', { expression: 'x = 5' })).toMatchObject({
      ok: true,
      content: '5',
    });
    expect(await call('calculate', { expression: 'x + 1' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'expression' },
    });
  });

  it('reports a syntax error as INVALID_ARGUMENT naming the expression', async () => {
    const result = await call('calculate', { expression: '2 +* 3' });
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'expression' },
    });
    if (!result.ok)
      expect(result.error.message).toMatch(/^expression: cannot evaluate "2 \+\* 3": /);
  });

  it('rejects a missing, empty or too long expression and a bad precision', async () => {
    for (const args of [{}, { expression: '' }, { expression: '1+'.repeat(1_001) }]) {
      expect(await call('calculate', args)).toMatchObject({
        ok: false,
        error: { code: 'INVALID_ARGUMENT', field: 'expression' },
      });
    }
    expect(await call('calculate', { expression: '1', precision: 0 })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'precision' },
    });
  });

  it('refuses the functions that reach outside arithmetic', async () => {
    const expressions = [
      'import({x: 1}, {override: true})',
      'evaluate("1+1")',
      'parse("1+1")',
      'compile("1+1")',
      'createUnit("snake", "1 m")',
      'simplify("x+x")',
      'derivative("x^2", "x")',
      'range(1, 1e9)',
      'zeros(1e5, 1e5)',
      'random()',
    ];
    for (const expression of expressions) {
      const result = await call('calculate', { expression });
      expect(result, expression).toMatchObject({
        ok: false,
        error: { code: 'INVALID_ARGUMENT', field: 'expression' },
      });
    }
  });

  it('gives no access to JavaScript objects, constructors or the process', async () => {
    const expressions = [
      'cos.constructor("return process")()',
      '[].constructor.constructor("return process")()',
      '"".constructor',
      'f = cos.constructor; f("return process")()',
      'a = {}; a.__proto__',
      'a = {}; a["constructor"]',
      'process.exit(1)',
      'require("fs")',
      'this',
      'globalThis',
      'eval("1")',
      'Function("return 1")()',
    ];
    for (const expression of expressions) {
      const result = await call('calculate', { expression });
      expect(result.ok, expression).toBe(false);
      if (!result.ok) expect(result.error.code, expression).toBe('INVALID_ARGUMENT');
    }
    expect(process.exitCode ?? 0).toBe(0);
  });

  it('does not let one call change the functions another call sees', async () => {
    await call('calculate', { expression: 'import({sqrt: 1}, {override: true})' });
    expect(await call('calculate', { expression: 'sqrt(16)' })).toMatchObject({
      ok: true,
      content: '4',
    });
  });
});

describe('text_transform', () => {
  it('changes case styles', async () => {
    const cases: Array<[string, string]> = [
      ['upper', 'HELLO WORLD-WIDE'],
      ['lower', 'hello world-wide'],
      ['title', 'Hello World-Wide'],
      ['camel', 'helloWorldWide'],
      ['pascal', 'HelloWorldWide'],
      ['snake', 'hello_world_wide'],
      ['kebab', 'hello-world-wide'],
      ['constant', 'HELLO_WORLD_WIDE'],
    ];
    for (const [operation, expected] of cases) {
      expect(
        await call('text_transform', { text: 'hello World-wide', operation }),
        operation,
      ).toEqual({
        ok: true,
        content: expected,
        data: { operation, result: expected },
      });
    }
  });

  it('splits camelCase words and makes slugs without accents', async () => {
    expect(
      await call('text_transform', { text: 'parseHTTPResponse', operation: 'snake' }),
    ).toMatchObject({
      content: 'parse_http_response',
    });
    expect(
      await call('text_transform', { text: ' Crème Brûlée à Paris! ', operation: 'slug' }),
    ).toMatchObject({
      content: 'creme-brulee-a-paris',
    });
  });

  it('round-trips Base64, URL and HTML encodings', async () => {
    const text = 'a <b> & "c" ü/?=';
    for (const [encode, decode] of [
      ['base64_encode', 'base64_decode'],
      ['url_encode', 'url_decode'],
      ['html_escape', 'html_unescape'],
    ] as const) {
      const encoded = await call('text_transform', { text, operation: encode });
      if (!encoded.ok) throw new Error(encoded.error.message);
      expect(
        await call('text_transform', { text: encoded.content, operation: decode }),
      ).toMatchObject({
        content: text,
      });
    }
  });

  it('counts and reverses by characters, not UTF-16 units', async () => {
    expect(await call('text_transform', { text: 'a😀b', operation: 'length' })).toMatchObject({
      content: '3',
    });
    expect(await call('text_transform', { text: 'a😀b', operation: 'reverse' })).toMatchObject({
      content: 'b😀a',
    });
  });

  it('collapses whitespace and trims', async () => {
    expect(
      await call('text_transform', { text: '  a \n\t b  ', operation: 'collapse_whitespace' }),
    ).toMatchObject({ content: 'a b' });
  });

  it('rejects malformed Base64 and percent-encoding naming the text', async () => {
    expect(
      await call('text_transform', { text: 'not base64!', operation: 'base64_decode' }),
    ).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'text', message: 'text: not valid base64' },
    });
    expect(
      await call('text_transform', { text: '%E0%A4%A', operation: 'url_decode' }),
    ).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'text' },
    });
  });

  it('rejects an unknown operation and a missing text', async () => {
    expect(await call('text_transform', { text: 'x', operation: 'rot13' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'operation' },
    });
    expect(await call('text_transform', { operation: 'upper' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'text' },
    });
  });
});

describe('get_time', () => {
  it('returns the current time in the requested zone', async () => {
    const before = Date.now();
    const result = await call('get_time', { timezone: 'Asia/Tokyo' });
    const after = Date.now();
    if (!result.ok) throw new Error(result.error.message);
    const data = result.data as { iso: string; timezone: string; weekday: string; unixMs: number };
    expect(data.timezone).toBe('Asia/Tokyo');
    expect(data.iso).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+09:00$/);
    expect(data.unixMs).toBeGreaterThanOrEqual(before);
    expect(data.unixMs).toBeLessThanOrEqual(after);
    // The rendered wall-clock time is the same instant, to the second.
    expect(Math.abs(Date.parse(data.iso) - data.unixMs)).toBeLessThan(1_000 + (after - before));
    expect(result.content).toBe(`${data.iso} (${data.weekday}, Asia/Tokyo)`);
  });

  it('writes UTC with a Z suffix', async () => {
    const result = await call('get_time', { timezone: 'UTC' });
    expect(result.ok && (result.data as { iso: string }).iso).toMatch(/Z$/);
  });

  it('rejects an unknown time zone naming the field', async () => {
    expect(await call('get_time', { timezone: 'Mars/Olympus' })).toMatchObject({
      ok: false,
      error: {
        code: 'INVALID_ARGUMENT',
        field: 'timezone',
        message: 'timezone: unknown time zone "Mars/Olympus"',
      },
    });
  });

  it('rejects a timezone that is not a string', async () => {
    expect(await call('get_time', { timezone: 9 })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'timezone' },
    });
  });
});

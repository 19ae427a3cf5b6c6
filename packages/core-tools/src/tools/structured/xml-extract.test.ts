import type { ToolResult } from '@toolsys/core-tool-registry';
import { createToolExecutor, ToolRegistry } from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { createXmlExtractTools } from './xml-extract.js';

const registry = new ToolRegistry();
registry.registerAll(createXmlExtractTools(), { owner: 'test' });
const executor = createToolExecutor({ registry });

function call(args: Record<string, unknown>): Promise<ToolResult> {
  return executor.execute('xml_extract', args);
}

const catalog = `<?xml version="1.0"?>
<catalog>
  <book id="b1" lang="en"><title>Dune</title><price>9.99</price></book>
  <book id="b2" lang="fr"><title>Vendredi</title><price>7.50</price></book>
</catalog>`;

describe('xml_extract', () => {
  it('returns matching elements with name, text and XML', async () => {
    const result = await call({ xml: catalog, xpath: "//book[@lang='en']/title" });
    expect(result).toEqual({
      ok: true,
      content: '1 node:\n- element title: "Dune"',
      data: {
        kind: 'nodes',
        count: 1,
        truncated: false,
        nodes: [{ type: 'element', name: 'title', value: 'Dune', xml: '<title>Dune</title>' }],
      },
    });
  });

  it('returns attribute values', async () => {
    const result = await call({ xml: catalog, xpath: '//book/@id' });
    expect(result).toMatchObject({
      ok: true,
      data: {
        nodes: [
          { type: 'attribute', name: 'id', value: 'b1' },
          { type: 'attribute', name: 'id', value: 'b2' },
        ],
      },
    });
  });

  it('returns numbers, strings and booleans of scalar expressions', async () => {
    expect(await call({ xml: catalog, xpath: 'count(//book)' })).toEqual({
      ok: true,
      content: '2',
      data: { kind: 'number', value: 2 },
    });
    expect(await call({ xml: catalog, xpath: 'string(//book[2]/title)' })).toMatchObject({
      data: { kind: 'string', value: 'Vendredi' },
    });
    expect(await call({ xml: catalog, xpath: 'sum(//price) > 17' })).toMatchObject({
      data: { kind: 'boolean', value: true },
    });
  });

  it('resolves prefixes through the namespaces map', async () => {
    const feed = '<feed xmlns="http://www.w3.org/2005/Atom"><title>News</title></feed>';
    const result = await call({
      xml: feed,
      xpath: '/a:feed/a:title/text()',
      namespaces: { a: 'http://www.w3.org/2005/Atom' },
    });
    expect(result).toMatchObject({ ok: true, data: { nodes: [{ type: 'text', value: 'News' }] } });
  });

  it('never expands external or internal entities (no XXE, no entity bombs)', async () => {
    const hostile = `<?xml version="1.0"?>
<!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/hostname"><!ENTITY a "AAAA"><!ENTITY b "&a;&a;&a;&a;">]>
<r><x>&xxe;</x><y>&b;</y></r>`;
    const result = await call({ xml: hostile, xpath: 'string(/r)' });
    expect(result).toMatchObject({ ok: true, data: { kind: 'string', value: '&xxe;&b;' } });
    if (result.ok)
      expect((result.data as { warnings: string[] }).warnings.length).toBeGreaterThan(0);
  });

  it('ends an expression that exceeds the time limit with TIMEOUT', async () => {
    const limited = new ToolRegistry();
    limited.registerAll(createXmlExtractTools({ matchTimeLimitMs: 1 }), { owner: 'test' });
    // following:: from each of 5 000 siblings visits the rest: quadratic, seconds of work.
    const xml = `<r>${'<a>x</a>'.repeat(5_000)}</r>`;
    const result = await createToolExecutor({ registry: limited }).execute('xml_extract', {
      xml,
      xpath: 'count(//a[. = following::a[last()]/preceding::a])',
    });
    expect(result).toMatchObject({ ok: false, error: { code: 'TIMEOUT', retryable: false } });
    // The next step is about XPath and the document, not about regular expressions.
    if (!result.ok) {
      expect(result.error.hint).toMatch(/XPath/);
      expect(result.error.hint).not.toMatch(/pattern|regex|maxMatches/i);
    }
  });

  it('rejects a document that is not well-formed naming the xml field', async () => {
    const result = await call({ xml: '<a><b></a>', xpath: '//a' });
    expect(result).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', field: 'xml' } });
    if (!result.ok) expect(result.error.message).toMatch(/^xml: not well-formed XML: /);
  });

  it('rejects an invalid XPath naming the xpath field', async () => {
    const result = await call({ xml: catalog, xpath: '//book[' });
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'xpath' },
    });
  });

  it('rejects an undeclared prefix naming the xpath field', async () => {
    const result = await call({ xml: catalog, xpath: '//x:book' });
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'xpath' },
    });
  });
});

import { describe, expect, it } from 'vitest';
import { renderCatalogTable, replaceCatalogTable } from './catalog-figures.js';

describe('the catalog table', () => {
  it('renders one row per mode, tokens per tool for the full list', () => {
    expect(
      renderCatalogTable([
        { mode: 'all', tools: 86, bytes: 50_585, tokens: 11_879 },
        { mode: 'discover', tools: 3, bytes: 1_843, tokens: 404 },
      ]),
    ).toBe(
      [
        '| mode | tools listed | `tools/list` size | o200k tokens |',
        '|---|---|---|---|',
        '| `all` (default) | 86 | 49.4 KB | 11,879 (138 per tool) |',
        '| `discover` | 3 | 1.8 KB | 404 |',
      ].join('\n'),
    );
  });

  it('replaces only what lies between the markers, and needs both', () => {
    const readme = 'a\n<!-- catalog:start -->\nold\n<!-- catalog:end -->\nb';
    expect(replaceCatalogTable(readme, 'new')).toBe(
      'a\n<!-- catalog:start -->\nnew\n<!-- catalog:end -->\nb',
    );
    expect(replaceCatalogTable('a\n<!-- catalog:end -->\n<!-- catalog:start -->', 'x')).toBe(
      undefined,
    );
    expect(replaceCatalogTable('no markers', 'x')).toBeUndefined();
  });
});

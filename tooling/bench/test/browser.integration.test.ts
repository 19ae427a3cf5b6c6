import { describe, expect, it } from 'vitest';
import { browserBench } from '../src/benches/browser.js';
import { descendantPids, tempDirsNamed } from '../src/cleanup.js';

// Real components: our host over MCP stdio, @playwright/mcp, two Debian Chromiums and a local
// HTTP server on 127.0.0.1. Timing is noisy on a shared machine, so only the shape is checked.
describe('pnpm bench browser --quick', () => {
  it('reports ratio, latencyRatio and interactiveCovered as finite figures and leaves nothing running', {
    timeout: 180_000,
  }, async () => {
    // Only this run's directory counts: another bench run on the machine may hold one of its own.
    const before = new Set(tempDirsNamed('toolsys-bench-browser-'));
    const report = await browserBench.run({ quick: true });
    const json = report.json as {
      ratio: number;
      latencyRatio: number;
      interactiveCovered: number;
      interactive: number;
      pages: Array<{ page: string; interactive: number; oursTokens: number; theirsTokens: number }>;
    };
    expect(report.name).toBe('browser');
    for (const field of ['ratio', 'latencyRatio', 'interactiveCovered'] as const) {
      expect(Number.isFinite(json[field]), field).toBe(true);
      expect(json[field], field).toBeGreaterThan(0);
    }
    expect(json.interactiveCovered).toBeLessThanOrEqual(1);
    expect(json.pages.map((page) => page.page)).toEqual(['docs', 'table', 'form', 'cards', 'app']);
    for (const page of json.pages) {
      expect(page.interactive, page.page).toBeGreaterThan(0);
      expect(page.oursTokens, page.page).toBeGreaterThan(0);
      expect(page.theirsTokens, page.page).toBeGreaterThan(0);
    }
    expect(report.lines.some((line) => line.startsWith('interactiveCovered'))).toBe(true);
    expect(descendantPids(process.pid)).toEqual([]);
    expect(tempDirsNamed('toolsys-bench-browser-').filter((name) => !before.has(name))).toEqual([]);
  });
});

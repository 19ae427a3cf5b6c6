import type { Bench } from '../report.js';

/** `pnpm bench mcp`. */
export const mcpBench: Bench = {
  name: 'mcp',
  summary: 'not written yet',
  async run() {
    throw new Error('the mcp bench is not written yet');
  },
};

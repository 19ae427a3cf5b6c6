import type { Bench } from '../report.js';

/** `pnpm bench memory`. */
export const memoryBench: Bench = {
  name: 'memory',
  summary: 'not written yet',
  async run() {
    throw new Error('the memory bench is not written yet');
  },
};

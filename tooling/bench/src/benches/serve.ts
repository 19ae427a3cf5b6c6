import type { Bench } from '../report.js';

/** `pnpm bench serve`. */
export const serveBench: Bench = {
  name: 'serve',
  summary: 'not written yet',
  async run() {
    throw new Error('the serve bench is not written yet');
  },
};

import type { Bench } from '../report.js';

/** `pnpm bench pipeline`. */
export const pipelineBench: Bench = {
  name: 'pipeline',
  summary: 'not written yet',
  async run() {
    throw new Error('the pipeline bench is not written yet');
  },
};

// The CPU worker run from the TypeScript sources (tests, `pnpm toolsys`): a worker thread does not
// share the loader of the thread that starts it, and on Node 20 `--import tsx` in a worker's
// `execArgv` registers no loader there, so the worker loads its code through tsx's API instead.
import { tsImport } from 'tsx/esm/api';

const worker = await tsImport('./cpu-worker.ts', import.meta.url);

export default worker.default;

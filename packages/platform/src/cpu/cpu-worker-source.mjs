// The CPU pool worker when the package runs from its TypeScript sources (tests, `pnpm toolsys`):
// a worker thread does not share its parent's loader, and `--import tsx` registers none in a
// worker on Node 20, so the loader is registered here before the worker code is imported.
import { register } from 'tsx/esm/api';

register();
const { default: runCpuTask } = await import('./cpu-worker.ts');
export default runCpuTask;

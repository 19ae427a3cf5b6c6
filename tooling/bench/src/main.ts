import { androidBench } from './benches/android.js';
import { browserBench } from './benches/browser.js';
import { catalogBench } from './benches/catalog.js';
import { mcpBench } from './benches/mcp.js';
import { memoryBench } from './benches/memory.js';
import { pipelineBench } from './benches/pipeline.js';
import { scaleBench } from './benches/scale.js';
import { serveBench } from './benches/serve.js';
import { startupBench } from './benches/startup.js';
import { tasksBench } from './benches/tasks.js';
import { terminalBench } from './benches/terminal.js';
import { cleanUpOnInterrupt } from './cleanup.js';
import type { Bench } from './report.js';

const BENCHES: readonly Bench[] = [
  pipelineBench,
  mcpBench,
  serveBench,
  startupBench,
  catalogBench,
  memoryBench,
  scaleBench,
  androidBench,
  terminalBench,
  browserBench,
  tasksBench,
];

const args = process.argv.slice(2);
const json = args.includes('--json');
const quick = args.includes('--quick');
const names = args.filter((arg) => !arg.startsWith('--'));
const unknown = names.filter((name) => !BENCHES.some((bench) => bench.name === name));
if (unknown.length > 0) {
  process.stderr.write(
    `Unknown bench: ${unknown.join(', ')}. Benches: ${BENCHES.map((b) => b.name).join(', ')}.\n`,
  );
  process.exit(2);
}
cleanUpOnInterrupt();
const selected = names.length > 0 ? BENCHES.filter((b) => names.includes(b.name)) : BENCHES;
const reports: Record<string, unknown>[] = [];
let failed = false;
for (const bench of selected) {
  try {
    const report = await bench.run({ quick });
    if (json)
      reports.push({ bench: report.name, target: report.target, met: report.met, ...report.json });
    else {
      process.stdout.write(
        `== ${report.name} (target: ${report.target}; ${report.met ? 'met' : 'NOT met'})\n`,
      );
      for (const line of report.lines) process.stdout.write(`${line}\n`);
      process.stdout.write('\n');
    }
  } catch (error) {
    failed = true;
    process.stderr.write(`bench ${bench.name} failed: ${(error as Error).message}\n`);
  }
}
if (json) {
  process.stdout.write(`${JSON.stringify(reports.length === 1 ? reports[0] : reports, null, 2)}\n`);
}
process.exitCode = failed ? 1 : 0;

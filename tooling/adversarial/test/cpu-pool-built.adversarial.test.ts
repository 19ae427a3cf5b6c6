import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

// The CPU tool pool from the built package (dist), as a published install runs it: a plain Node
// process without the TypeScript loader. The other tests load the sources through Vitest.
const corePackageDir = dirname(
  createRequire(import.meta.url).resolve('@toolsys/core-tools/package.json'),
);
const platformPackageDir = dirname(
  createRequire(join(corePackageDir, 'package.json')).resolve('@toolsys/platform/package.json'),
);
// The pool's generic worker (platform) and the module it loads the core tools from (core-tools).
const builtWorker = join(platformPackageDir, 'dist', 'cpu', 'cpu-worker.js');
const builtTools = join(corePackageDir, 'dist', 'cpu', 'cpu-tool-definitions.js');
const isBuilt = existsSync(builtWorker) && existsSync(builtTools);

const SCRIPT = `
const core = await import('@toolsys/core-tool-registry');
const coreTools = await import('@toolsys/core-tools');
const pool = new coreTools.CpuToolPool({ maxThreads: 2, taskTimeLimitMs: 60_000 });
const context = (signal) => ({
  callId: 'c', sessionId: 's', attempt: 1, signal,
  emit() {}, async confirm() { return 'deny'; },
});
const never = new AbortController().signal;
const prime = await pool.run('calculate', { expression: 'isPrime(2^61-1)', precision: 14 }, context(never));
let beats = 0;
const heartbeat = setInterval(() => { beats += 1; }, 25);
const stop = new AbortController();
const timer = setTimeout(() => stop.abort(new Error('time limit')), 3_000);
let runaway;
try {
  await pool.run('calculate', { expression: 'f(n)=n<1?1:f(n-1)+f(n-1); f(40)', precision: 14 }, context(stop.signal));
  runaway = 'finished';
} catch (error) {
  runaway = error.message;
}
clearTimeout(timer);
clearInterval(heartbeat);
const after = await pool.run('csv_query', { csv: 'a,b\\n1,2\\n', header: 'yes', delimiter: ',', filter: [], sort: [], offset: 0, limit: 10 }, context(never));
await pool.close();
console.log(JSON.stringify({ prime, runaway, beats, after }));
`;

let child: ChildProcess | undefined;

afterEach(() => {
  if (child?.pid !== undefined && child.exitCode === null) child.kill('SIGKILL');
  child = undefined;
});

describe('the CPU tool pool from the built package', () => {
  // CI builds before testing; locally the test runs once `pnpm build` has made dist.
  it.skipIf(!isBuilt && process.env.CI !== 'true')(
    'runs tools in dist workers and stops a runaway when its signal fires',
    async () => {
      expect(isBuilt, `build first: ${builtWorker} or ${builtTools} is missing`).toBe(true);
      const output = await new Promise<string>((resolve, reject) => {
        let stdout = '';
        let stderr = '';
        child = spawn(process.execPath, ['--input-type=module', '--eval', SCRIPT], {
          cwd: corePackageDir,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        child.stdout?.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
        });
        child.stderr?.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
        });
        child.on('error', reject);
        child.on('exit', (code) =>
          code === 0 ? resolve(stdout) : reject(new Error(`exit ${code}: ${stderr}`)),
        );
      });
      const result = JSON.parse(output.trim().split('\n').at(-1) ?? '{}');
      expect(result.prime).toMatchObject({ ok: true, content: 'true' });
      expect(result.runaway).toBe('time limit');
      expect(result.beats).toBeGreaterThan(10);
      expect(result.after).toMatchObject({
        ok: true,
        data: { columns: ['a', 'b'], matchedRows: 1 },
      });
    },
    120_000,
  );
});

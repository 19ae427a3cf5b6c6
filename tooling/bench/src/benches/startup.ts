import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { removeOnExit } from '../cleanup.js';
import { REPO_ROOT } from '../processes.js';
import { type Bench, formatRatio, percentile } from '../report.js';
import { listToolsOverStdio } from '../stdio-list.js';

const TARGET_RATIO = 1.0;
const TARGET_VERSION_RATIO = 3;
const TARGET_KERNEL_DEPENDENCIES = 3;
const CHROMIUM = '/usr/bin/chromium';

/** What one start measured, in ms from spawn. */
interface StartTimes {
  readonly initializeMs: number;
  readonly toolsListMs: number;
  readonly tools: number;
}

/**
 * Spawns an MCP stdio server and times `initialize` and then `tools/list` (the first thing every
 * MCP client does) from the spawn.
 */
async function timeStart(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<StartTimes> {
  const listed = await listToolsOverStdio(
    { command, args, cwd: options.cwd, env: options.env },
    'toolsys-bench-startup',
  );
  return {
    initializeMs: listed.initializeMs,
    toolsListMs: listed.toolsListMs,
    tools: listed.result.tools.length,
  };
}

/** Wall time of a process that runs to its end, in ms. */
async function timeRun(
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const started = performance.now();
  const child = spawn(command, [...args], { cwd, env, stdio: 'ignore' });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`${args.join(' ')} exited with ${code}`);
  return performance.now() - started;
}

/** The number of runtime dependencies of the kernel package. */
export function kernelDependencies(): number {
  const manifest = JSON.parse(
    readFileSync(join(REPO_ROOT, 'packages/core-tool-registry/package.json'), 'utf8'),
  ) as { dependencies?: Record<string, string> };
  return Object.keys(manifest.dependencies ?? {}).length;
}

const median = (values: readonly number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
const round = (value: number) => Math.round(value);

/**
 * `pnpm bench startup`: spawn → `initialize` and `tools/list` answered, for `toolsys serve
 * --stdio` (embedded default config, a fresh data dir per run) and for @playwright/mcp, interleaved;
 * plus `toolsys --version` against a bare `node -e 0`, and the kernel's dependency count.
 */
export const startupBench: Bench = {
  name: 'startup',
  summary:
    'start-up: toolsys serve --stdio vs @playwright/mcp (initialize + tools/list), toolsys --version vs node -e 0',
  async run({ quick }) {
    const runs = quick ? 3 : 7;
    const cli = join(REPO_ROOT, 'apps/host/dist/cli.js');
    if (!existsSync(cli)) throw new Error('apps/host/dist/cli.js is missing: run `pnpm build`');
    const require = createRequire(import.meta.url);
    const peerCli = join(dirname(require.resolve('@playwright/mcp/package.json')), 'cli.js');
    const scratch = removeOnExit(mkdtempSync(join(tmpdir(), 'toolsys-bench-startup-')));
    try {
      const ours: StartTimes[] = [];
      const theirs: StartTimes[] = [];
      const version: number[] = [];
      const bare: number[] = [];
      // A cold `toolsys call` of the README's first example (calculate runs in the CPU tool pool,
      // so its first call starts a worker and loads mathjs there) against one that needs neither.
      const calculateCalls: number[] = [];
      const getTimeCalls: number[] = [];
      const coldCall = (index: number, tool: string, args: string) =>
        timeRun(process.execPath, [cli, 'call', tool, args], scratch, {
          ...process.env,
          INIT_CWD: scratch,
          TOOLSYS_DATA_DIR: join(scratch, `call-data-${index}`),
        });
      for (let index = 0; index < runs; index += 1) {
        // No config file in the working directory: the embedded default serves.
        const ourStart = () =>
          timeStart(process.execPath, [cli, 'serve', '--stdio'], {
            cwd: scratch,
            env: {
              ...process.env,
              INIT_CWD: scratch,
              TOOLSYS_DATA_DIR: join(scratch, `data-${index}`),
            },
          });
        const theirStart = () =>
          timeStart(
            process.execPath,
            [peerCli, '--headless', '--executable-path', CHROMIUM, '--isolated'],
            {
              cwd: scratch,
              env: {
                ...process.env,
                PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1',
                PLAYWRIGHT_BROWSERS_PATH: join(scratch, 'no-browsers'),
              },
            },
          );
        // Alternate who goes first, so that load changes hit both sides alike.
        if (index % 2 === 0) {
          ours.push(await ourStart());
          theirs.push(await theirStart());
          version.push(await timeRun(process.execPath, [cli, '--version'], scratch));
          bare.push(await timeRun(process.execPath, ['-e', '0'], scratch));
          calculateCalls.push(await coldCall(index, 'calculate', '{"expression":"2+3*4"}'));
          getTimeCalls.push(await coldCall(index, 'get_time', '{}'));
        } else {
          theirs.push(await theirStart());
          ours.push(await ourStart());
          bare.push(await timeRun(process.execPath, ['-e', '0'], scratch));
          version.push(await timeRun(process.execPath, [cli, '--version'], scratch));
          getTimeCalls.push(await coldCall(index, 'get_time', '{}'));
          calculateCalls.push(await coldCall(index, 'calculate', '{"expression":"2+3*4"}'));
        }
      }
      const calculateCallMs = median(calculateCalls);
      const getTimeCallMs = median(getTimeCalls);
      const oursMs = median(ours.map((start) => start.toolsListMs));
      const theirsMs = median(theirs.map((start) => start.toolsListMs));
      const versionMs = median(version);
      const bareMs = median(bare);
      const ratio = oursMs / theirsMs;
      const versionRatio = versionMs / bareMs;
      const dependencies = kernelDependencies();
      const toolsOurs = Math.min(...ours.map((start) => start.tools));
      return {
        name: 'startup',
        target: `ratio <= ${TARGET_RATIO}, versionRatio <= ${TARGET_VERSION_RATIO}, kernelDependencies <= ${TARGET_KERNEL_DEPENDENCIES}`,
        met:
          ratio <= TARGET_RATIO &&
          versionRatio <= TARGET_VERSION_RATIO &&
          dependencies <= TARGET_KERNEL_DEPENDENCIES,
        lines: [
          `${runs} interleaved runs, medians; spawn -> initialize + tools/list answered`,
          `toolsys serve --stdio:  ${round(oursMs)} ms (initialize ${round(median(ours.map((start) => start.initializeMs)))} ms; ${toolsOurs}-${Math.max(...ours.map((start) => start.tools))} tools listed)`,
          `@playwright/mcp:        ${round(theirsMs)} ms (initialize ${round(median(theirs.map((start) => start.initializeMs)))} ms; ${theirs[0]?.tools ?? 0} tools listed)`,
          `ratio (toolsys / @playwright/mcp): ${formatRatio(ratio)}`,
          `toolsys --version: ${round(versionMs)} ms; node -e 0: ${round(bareMs)} ms; versionRatio: ${formatRatio(versionRatio)}`,
          `kernelDependencies (packages/core-tool-registry runtime dependencies): ${dependencies}`,
          `cold toolsys call: calculate ${round(calculateCallMs)} ms, get_time ${round(getTimeCallMs)} ms; calculateCallRatio: ${formatRatio(calculateCallMs / getTimeCallMs)}`,
        ],
        json: {
          ratio: Number(ratio.toFixed(3)),
          versionRatio: Number(versionRatio.toFixed(3)),
          kernelDependencies: dependencies,
          runs,
          oursMs: round(oursMs),
          theirsMs: round(theirsMs),
          oursInitializeMs: round(median(ours.map((start) => start.initializeMs))),
          theirsInitializeMs: round(median(theirs.map((start) => start.initializeMs))),
          versionMs: round(versionMs),
          bareNodeMs: round(bareMs),
          calculateCallMs: round(calculateCallMs),
          getTimeCallMs: round(getTimeCallMs),
          calculateCallRatio: Number((calculateCallMs / getTimeCallMs).toFixed(3)),
          oursTools: ours.map((start) => start.tools),
          theirsTools: theirs.map((start) => start.tools),
          oursRunsMs: ours.map((start) => round(start.toolsListMs)),
          theirsRunsMs: theirs.map((start) => round(start.toolsListMs)),
        },
      };
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  },
};

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderResult } from '@toolsys/core-tool-registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveDeploymentConfig } from '../src/config.js';
import { composeDeployment, type Deployment } from '../src/deployment.js';

let scratch: string;
let deployment: Deployment;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-off-tools-'));
  const resolved = resolveDeploymentConfig(
    {
      dataDir: join(scratch, 'data'),
      tools: { exclude: ['delete_file'] },
      packages: { 'cs-mem': { enabled: false } },
    },
    // No GitHub token in this environment: app-github is off.
    { cwd: scratch, env: {} },
  );
  deployment = await composeDeployment(resolved);
});

afterAll(async () => {
  await deployment.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('a tool that is off is not an unknown tool', () => {
  it('names the package that is off, why, and what turns it on', async () => {
    const result = await deployment.executor.execute('github_get_user', {});
    expect(renderResult(result)).toMatch(
      /^Error: \[UNSUPPORTED\] github_get_user is off in this deployment \(@toolsys\/app-github\): its package is off: no GitHub token: set GITHUB_TOKEN or GH_TOKEN.*\nNext: Ask the user to fix what the reason names, then to restart toolsys \(packages are detected when it starts\); toolsys doctor shows the state of every package\. Until then, use another tool\.$/,
    );
  });

  it('names the setting that leaves a tool out, instead of suggesting another tool', async () => {
    const result = await deployment.executor.execute('delete_file', { path: 'notes.txt' });
    expect(renderResult(result)).toBe(
      'Error: [UNSUPPORTED] delete_file is off in this deployment (@toolsys/core-tools): the configuration leaves it out (tools.exclude matches it ("delete_file"))\nNext: Ask the user to change that setting in the deployment config if this tool is needed. Until then, use another tool.',
    );
  });

  it('says how to turn on a package the configuration disables', async () => {
    const result = await deployment.executor.execute('memory_search_nodes', { query: 'x' });
    expect(!result.ok && result.error.hint).toBe(
      'Ask the user to set packages.cs-mem.enabled to true in the deployment config. Until then, use another tool.',
    );
  });

  it('lists off tools in tool_search, and still answers NOT_FOUND for an id nobody has', async () => {
    const search = await deployment.executor.execute('tool_search', { query: 'github user' });
    expect(renderResult(search)).toContain('github_get_user');
    expect(renderResult(search)).toContain(
      '(@toolsys/app-github: its package is off: no GitHub token',
    );
    const unknown = await deployment.executor.execute('github_get_usr', {});
    expect(!unknown.ok && unknown.error.code).toBe('NOT_FOUND');
  });
});

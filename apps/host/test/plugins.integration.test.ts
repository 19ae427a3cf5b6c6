import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CLI = resolve(import.meta.dirname, '../src/cli.ts');
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const CORE = resolve(import.meta.dirname, '../../../packages/core-tool-registry');
const ZOD = dirname(createRequire(import.meta.url).resolve('zod/package.json'));
let project: string;

function toolsys(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['--conditions=@toolsys/source', '--import', TSX, CLI, ...args],
      {
        cwd: project,
        env: { ...process.env, INIT_CWD: project, TOOLSYS_DATA_DIR: join(project, 'data') },
        timeout: 110_000,
      },
      (error, stdout, stderr) =>
        done({
          code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
          stdout,
          stderr,
        }),
    );
  });
}

function writeConfig(config: object): void {
  writeFileSync(join(project, 'toolsys.config.json'), JSON.stringify(config));
}

beforeAll(() => {
  // A user's project: the plugin installed in its node_modules beside the config file, with the
  // core package it depends on.
  project = mkdtempSync(join(tmpdir(), 'toolsys-plugin-'));
  const modules = join(project, 'node_modules');
  cpSync(
    join(import.meta.dirname, 'fixtures/weather-plugin'),
    join(modules, 'toolsys-plugin-weather'),
    {
      recursive: true,
    },
  );
  mkdirSync(join(modules, '@toolsys'), { recursive: true });
  symlinkSync(CORE, join(modules, '@toolsys/core-tool-registry'), 'dir');
  symlinkSync(ZOD, join(modules, 'zod'), 'dir');
});

afterAll(() => {
  rmSync(project, { recursive: true, force: true });
});

describe('third-party packages named in plugins', { timeout: 120_000 }, () => {
  it('are composed by npm name with their own config section', async () => {
    writeConfig({ plugins: ['toolsys-plugin-weather'], packages: { weather: { unit: 'F' } } });
    const run = await toolsys(['call', 'weather_now', '{"city":"Oslo"}']);
    expect(run).toMatchObject({ code: 0, stdout: 'Oslo: 59 °F\n' });
    const doctor = await toolsys(['doctor', '--json']);
    const report = JSON.parse(doctor.stdout) as { packages: Array<Record<string, unknown>> };
    expect(report.packages.find((entry) => entry.key === 'weather')).toEqual({
      key: 'weather',
      name: 'toolsys-plugin-weather',
      enabled: true,
      reason: 'no backend needed',
      tools: 3,
    });
  });

  it('print the paths of the artifacts a call returned that its text does not name', async () => {
    writeConfig({ plugins: ['toolsys-plugin-weather'] });
    const run = await toolsys(['call', 'weather_chart', '{"city":"Oslo"}']);
    const folder = join(project, 'data', 'weather');
    expect(run).toMatchObject({
      code: 0,
      stdout: `Week for Oslo written to ${join(folder, 'Oslo.csv')}.\nartifact: ${join(folder, 'Oslo.svg')} (image/svg+xml)\n`,
    });
    const json = await toolsys(['call', 'weather_chart', '{"city":"Oslo"}', '--json']);
    expect(JSON.parse(json.stdout).artifacts).toEqual([
      { path: join(folder, 'Oslo.csv'), mimeType: 'text/csv' },
      {
        path: join(folder, 'Oslo.svg'),
        mimeType: 'image/svg+xml',
        description: 'temperature chart',
      },
    ]);
  });

  it('ask before running a tool that declares no risk and no hints', async () => {
    writeConfig({ plugins: ['toolsys-plugin-weather'] });
    const refused = await toolsys(['call', 'weather_reset', '{"city":"Oslo"}']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('no one can confirm here');
    expect(refused.stdout).toContain('"weather_reset" to permissions.alwaysAllow');
    expect(refused.stdout).not.toContain('reports forgotten');
    const described = await toolsys(['describe', 'weather_reset', '--json']);
    expect(JSON.parse(described.stdout)).toMatchObject({
      risk: 'MEDIUM',
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    });
    const allowed = await toolsys(['call', 'weather_reset', '{"city":"Oslo"}', '--yes']);
    expect(allowed).toMatchObject({ code: 0, stdout: 'Oslo: reports forgotten\n' });
  });

  it('validate the plugin section against its schema, naming the closest key', async () => {
    writeConfig({ plugins: ['toolsys-plugin-weather'], packages: { weather: { units: 'F' } } });
    const run = await toolsys(['list']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'packages.weather.units: unknown key "units" (did you mean "unit"?)',
    );
  });

  it('report a plugin that is not installed, and keep serving the others', async () => {
    writeConfig({ plugins: ['toolsys-plugin-missing'] });
    const doctor = await toolsys(['doctor', '--json']);
    expect(doctor.code).toBe(0);
    const report = JSON.parse(doctor.stdout) as { packages: Array<Record<string, unknown>> };
    expect(report.packages.find((entry) => entry.key === 'toolsys-plugin-missing')).toMatchObject({
      enabled: false,
      reason: expect.stringContaining(
        'plugin not installed: run `npm install toolsys-plugin-missing`',
      ),
    });
    expect(report.packages.find((entry) => entry.key === 'core')).toMatchObject({ enabled: true });
  });

  it('report the section of a plugin that is not installed as off, and serve the rest', async () => {
    writeConfig({ plugins: ['toolsys-plugin-missing'], packages: { missing: { unit: 'C' } } });
    const doctor = await toolsys(['doctor', '--json']);
    expect(doctor.code).toBe(0);
    const report = JSON.parse(doctor.stdout) as { packages: Array<Record<string, unknown>> };
    expect(report.packages.find((entry) => entry.key === 'missing')).toMatchObject({
      enabled: false,
      reason:
        'packages.missing names no installed package; it may be the section of toolsys-plugin-missing, which could not be loaded',
    });
    expect(report.packages.find((entry) => entry.key === 'core')).toMatchObject({ enabled: true });
  });

  it('still refuse a misspelled section when every plugin loaded', async () => {
    writeConfig({ packages: { 'cs-memm': {} } });
    const run = await toolsys(['list']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'packages.cs-memm: unknown package "cs-memm" (did you mean "cs-mem"?)',
    );
  });
});

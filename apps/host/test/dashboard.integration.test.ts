import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM_ARGS } from '@toolsys/app-browser';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpServer, serveHttp } from '../src/server/http-server.js';
import { createTestHost, type TestHost } from './support/test-tools.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

let testHost: TestHost;
let http: HttpServer;
let profile: string;
let browser: BrowserContext;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM}; .ci/run installs the Debian package.`,
    );
  }
  testHost = await createTestHost();
  http = await serveHttp(testHost.host, { host: '127.0.0.1', port: 0 });
  profile = mkdtempSync(join(tmpdir(), 'toolsys-dashboard-profile-'));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: [...CHROMIUM_ARGS],
    headless: true,
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await http?.close();
  await testHost?.dispose();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

describe('dashboard in Chromium', () => {
  it('loads the tool table and filters it by category and risk', async () => {
    const page = await browser.newPage();
    await page.goto(http.dashboardUrl);
    await expect
      .poll(() => page.locator('#tools tbody tr').count())
      .toBe(testHost.deployment.registry.size);
    await expect
      .poll(() => page.locator('#summary').textContent())
      .toContain(`${testHost.deployment.registry.size} tools`);
    await page.selectOption('#risk-filter', 'MEDIUM');
    const medium = await page
      .locator('#tools tbody tr')
      .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-tool')));
    expect(medium).toContain('test_guarded');
    expect(medium).not.toContain('calculate');
    await page.selectOption('#risk-filter', '');
    await page.selectOption('#category-filter', 'utility');
    expect(await page.locator('#tools tbody tr[data-tool="calculate"]').count()).toBe(1);
    await page.close();
  });

  it('shows a call made from the form in the live trace view', async () => {
    const page = await browser.newPage();
    await page.goto(http.dashboardUrl);
    await expect.poll(() => page.locator('#call-tool option').count()).toBeGreaterThan(0);
    await page.selectOption('#call-tool', 'calculate');
    await page.fill('#call-args', '{"expression": "6*7"}');
    await page.click('#call-submit');
    // calculate runs in a worker thread; the first one starts cold (mathjs loads in it).
    await expect
      .poll(() => page.locator('#call-result').textContent(), { timeout: 60_000 })
      .toBe('42');
    const row = page.locator('#traces tbody tr', { hasText: 'calculate' });
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.locator('td').nth(2).textContent()).toBe('1');
    await expect.poll(() => row.locator('td').nth(3).textContent()).toBe('dashboard');
    expect(await row.locator('td').nth(4).textContent()).toBe('ok');
    // The usage column of the tool table follows.
    await expect
      .poll(() => page.locator('#tools tbody tr[data-tool="calculate"] td').nth(3).textContent())
      .toBe('1');
    await page.close();
  });

  it("clears the previous tool's arguments when another tool is picked", async () => {
    const page = await browser.newPage();
    await page.goto(http.dashboardUrl);
    await expect.poll(() => page.locator('#call-tool option').count()).toBeGreaterThan(1);
    await page.selectOption('#call-tool', 'calculate');
    await page.fill('#call-args', '{"expression": "6*7"}');
    await page.selectOption('#call-tool', 'test_guarded');
    expect(await page.inputValue('#call-args')).toBe('{}');
    await page.close();
  });

  it("counts a tool's runs from the same recent spans as its latencies", async () => {
    const tool = testHost.deployment.registry
      .list()
      .find((entry) => entry.id !== 'calculate' && entry.id !== 'test_guarded');
    if (tool === undefined) throw new Error('no third tool');
    // A span kept from an earlier run of the server (the trace file), which usage never counted.
    testHost.deployment.stack.traces.add({
      callId: 'earlier-run-1',
      toolId: tool.id,
      attempt: 1,
      startedAt: Date.now() - 60_000,
      durationMs: 12.5,
      outcome: 'ok',
      argsDigest: { length: 2, printable: 2, fields: {} },
    });
    const page = await browser.newPage();
    await page.goto(http.dashboardUrl);
    const cells = page.locator(`#tools tbody tr[data-tool="${tool.id}"] td`);
    await expect.poll(() => cells.nth(5).textContent()).toBe('12.5');
    expect(await cells.nth(3).textContent()).toBe('1');
    await page.close();
  });

  it('asks the person at the form before a tool that needs confirmation, and runs it when allowed', async () => {
    const page = await browser.newPage();
    await page.goto(http.dashboardUrl);
    await expect.poll(() => page.locator('#call-tool option').count()).toBeGreaterThan(1);
    await page.selectOption('#call-tool', 'test_guarded');
    await page.fill('#call-args', '{"note": "from the form"}');
    await page.click('#call-submit');
    await page.locator('#confirm-panel').waitFor({ state: 'visible' });
    expect(await page.locator('#confirm-text').textContent()).toContain('test_guarded');
    await page.click('#confirm-allow');
    await expect
      .poll(() => page.locator('#call-result').textContent())
      .toBe('guarded ran from the form');
    expect(await page.locator('#confirm-panel').isHidden()).toBe(true);

    await page.click('#call-submit');
    await page.locator('#confirm-panel').waitFor({ state: 'visible' });
    await page.click('#confirm-deny');
    await expect
      .poll(() => page.locator('#call-result').textContent())
      .toContain('PERMISSION_DENIED');
    expect(await page.locator('#call-result').textContent()).not.toContain('elicitation');
    await page.close();
  });
});

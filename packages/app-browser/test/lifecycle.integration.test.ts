import { readdir, readFile } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHostPolicy } from '../src/host-policy.js';
import { createHarness, type Harness } from './harness.js';
import { type PageServer, startPageServer } from './support.js';

let server: PageServer;
const harnesses: Harness[] = [];

beforeAll(async () => {
  server = await startPageServer();
});

afterEach(async () => {
  for (const harness of harnesses.splice(0)) await harness.close();
});

afterAll(async () => {
  await server?.close();
});

async function track(options: Parameters<typeof createHarness>[0] = {}): Promise<Harness> {
  const harness = await createHarness(options);
  harnesses.push(harness);
  return harness;
}

/** Pids of the Chromium processes this test process started (its direct children). */
async function browserPids(): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const match = /^\d+ \((.*)\) \S+ (\d+)/.exec(stat);
    if (match && Number(match[2]) === process.pid && /chrom/i.test(match[1] as string)) {
      pids.push(Number(entry));
    }
  }
  return pids;
}

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 20_000) {
  const end = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('browser lifecycle', () => {
  it('starts no browser until the first call', async () => {
    const harness = await track();
    expect(harness.manager.isRunning).toBe(false);
    expect(await harness.text('browser_navigate', { url: `${server.origin}/other.html` })).toMatch(
      /^Tab t1: "Other page"/,
    );
    expect(harness.manager.isRunning).toBe(true);
  });

  it('restarts a killed browser on the next call and says that page state was lost', async () => {
    const harness = await track();
    await harness.text('browser_navigate', { url: `${server.origin}/other.html` });
    const pids = await browserPids();
    expect(pids.length).toBeGreaterThan(0);
    // Playwright starts Chromium in its own process group: end the whole group by its pid.
    for (const pid of pids) process.kill(-pid, 'SIGKILL');
    await waitFor(() => !harness.manager.isRunning);
    const after = await harness.text('browser_context_summary', {});
    expect(after.split('\n').slice(0, 3)).toEqual([
      'Note: the browser had stopped unexpectedly and was restarted; every tab and its page state (forms, logins, scroll positions) were lost. Navigate again.',
      'Tabs (0):',
      '  none; browser_navigate opens one',
    ]);
    expect(await harness.text('browser_navigate', { url: `${server.origin}/form.html` })).toMatch(
      /^Tab t1: "Order form"/,
    );
    // The note is given once.
    expect(await harness.text('browser_context_summary', {})).not.toContain('Note:');
  });

  it('closes the browser when idle and tells the next call', async () => {
    const harness = await track({ manager: { idleTimeoutMs: 300 } });
    await harness.text('browser_navigate', { url: `${server.origin}/other.html` });
    await waitFor(() => !harness.manager.isRunning);
    const after = await harness.text('browser_navigate', { url: `${server.origin}/other.html` });
    expect(after.split('\n')[0]).toBe(
      'Note: the browser had been closed after an idle period; earlier tabs and page state are gone. Navigate again.',
    );
  });

  it('closes the context of an ended session and starts a fresh one on its next call', async () => {
    const harness = await track();
    await harness.text('browser_navigate', { url: `${server.origin}/other.html` });
    await harness.manager.closeSession('test');
    expect((await harness.text('browser_context_summary', {})).split('\n')[0]).toBe('Tabs (0):');
    expect(harness.manager.isRunning).toBe(true);
  });

  it('stops the browser on dispose and refuses later calls', async () => {
    const harness = await track();
    await harness.text('browser_navigate', { url: `${server.origin}/other.html` });
    await harness.manager.dispose();
    expect(harness.manager.isRunning).toBe(false);
    await waitFor(async () => (await browserPids()).length === 0);
    expect(await harness.text('browser_snapshot', {})).toBe(
      'Error: [UNSUPPORTED] the browser tools have been shut down\nNext: The host is stopping; do not retry.',
    );
  });

  it('refuses loopback pages when the policy does not allow them, for every request', async () => {
    const harness = await track();
    const { SsrfGuard } = await import('@toolsys/platform');
    const strict = await createHarness({ manager: { ssrfGuard: new SsrfGuard() } });
    harnesses.push(strict);
    // The navigate check passes (the tools' guard allows 127.0.0.1) but the browser's proxy
    // obeys the stricter policy given to the manager.
    const page = await strict.text('browser_navigate', { url: `${server.origin}/other.html` });
    expect(page).toContain('The server answered HTTP 403.');
    expect(page).toContain(
      'Blocked by the network policy of the browser tools: Refused to connect to 127.0.0.1: it is a loopback address',
    );
    expect(await harness.text('browser_navigate', { url: `${server.origin}/other.html` })).toMatch(
      /^Tab t1: "Other page"/,
    );
  });
});

describe('host lists', () => {
  it('refuses a navigation to a host outside the allow list, and any request to it', async () => {
    const harness = await track({ hostPolicy: createHostPolicy({ allowedHosts: ['localhost'] }) });
    expect(await harness.text('browser_navigate', { url: `${server.origin}/other.html` })).toBe(
      "Error: [PERMISSION_DENIED] url: 127.0.0.1 is not on the deployment's list of allowed hosts\nNext: Use another site; only an operator can change the list (packages.app-browser allowedHosts / blockedHosts).",
    );
  });

  it('blocks a request the page makes to a blocked host through the proxy', async () => {
    const policy = createHostPolicy({ blockedHosts: ['127.0.0.1'] });
    const harness = await track({ manager: { hostPolicy: policy } });
    const page = await harness.text('browser_navigate', { url: `${server.origin}/other.html` });
    expect(page).toContain('The server answered HTTP 403.');
    expect(page).toContain(
      "Blocked by the network policy of the browser tools: Refused to connect: 127.0.0.1 is on the deployment's list of blocked hosts.",
    );
  });
});

describe('secrets', () => {
  it('redacts secret values the deployment names from every result', async () => {
    const harness = await track({ redact: ['sk-live-4242'] });
    const page = await harness.text('browser_navigate', { url: `${server.origin}/secret.html` });
    expect(page).toContain('- paragraph: Your API key is [redacted] (keep it safe)');
    expect(page).not.toContain('sk-live-4242');
    const log = await harness.text('browser_network_log', {});
    expect(log).toContain('/secret.html?q=[redacted]');
    expect(log).not.toContain('sk-live-4242');
    const summary = await harness.call('browser_context_summary', {});
    expect(JSON.stringify(summary)).not.toContain('sk-live-4242');
  });

  it('redacts the files of a debug dump (the screenshot aside)', async () => {
    const harness = await track({ redact: ['sk-live-4242'] });
    await harness.text('browser_navigate', { url: `${server.origin}/secret.html` });
    const dump = await harness.call('browser_debug_dump', {});
    expect(dump.ok).toBe(true);
    if (!dump.ok) return;
    const { files } = dump.data as { files: { console: string; html: string } };
    const html = await readFile(files.html, 'utf8');
    expect(html).toContain('Your API key is [redacted] (keep it safe)');
    expect(html).not.toContain('sk-live-4242');
    const consoleLog = await readFile(files.console, 'utf8');
    expect(consoleLog).toContain('[error] key [redacted] was refused');
    expect(consoleLog).not.toContain('sk-live-4242');
  });

  it('keeps the whole-page artifact of a cut page and redacts the file too', async () => {
    const harness = await track({ redact: ['sk-live-4242'] });
    const page = await harness.call('browser_navigate', {
      url: `${server.origin}/chapters?count=200&note=${encodeURIComponent('Key sk-live-4242.')}`,
    });
    expect(page.ok).toBe(true);
    if (!page.ok) return;
    expect(page.content).toContain('Key [redacted].');
    const { savedTo } = page.data as { savedTo: string };
    expect(page.artifacts).toEqual([
      {
        path: savedTo,
        mimeType: 'text/plain',
        description: 'The whole accessibility tree of tab t1 (every node, no budget)',
      },
    ]);
    const whole = await readFile(savedTo, 'utf8');
    expect(whole).toContain('Key [redacted].');
    expect(whole).not.toContain('sk-live-4242');
  });
});

describe('time limits', () => {
  it('returns what a page shows when it does not finish loading in time', async () => {
    const harness = await track({ navigationTimeoutMs: 1_500 });
    const page = await harness.text('browser_navigate', { url: `${server.origin}/slow` });
    expect(page.split('\n')).toEqual([
      `Tab t1: "Slow" — ${server.origin}/slow`,
      'The page had not finished loading after 2 s; this is what it shows so far.',
      '- paragraph: Still loading',
    ]);
  });

  it('answers a cancelled call at once, while the page is still loading', async () => {
    const harness = await track();
    const controller = new AbortController();
    const pending = harness.call(
      'browser_navigate',
      { url: `${server.origin}/slow` },
      'test',
      controller.signal,
    );
    setTimeout(() => controller.abort(), 500);
    expect(await pending).toEqual({
      ok: false,
      error: {
        code: 'EXECUTION_FAILED',
        message: 'The call was cancelled by the caller.',
        retryable: false,
        hint: 'The caller cancelled this call; do not retry unless asked to.',
        details: { cancelled: true },
      },
    });
  });

  it('gives TIMEOUT with a next step when the target stays covered', async () => {
    const harness = await track({ actionTimeoutMs: 1_000 });
    const page = await harness.text('browser_navigate', { url: `${server.origin}/covered` });
    const ref = /button "Under" \[ref=(e\d+)\]/.exec(page)?.[1];
    const result = await harness.call('browser_click', { ref });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe('TIMEOUT');
      expect(result.error.message).toMatch(/^the browser did not finish in time: /);
      expect(result.error.hint).toBe(
        'Take a browser_snapshot to see the page state; the element may be hidden, covered or disabled. Retry once, or pick another element.',
      );
    }
  });
});

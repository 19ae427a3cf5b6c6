import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type BrowserHarness, createBrowserHarness } from './support/browser.js';

// A hostile page swaps the element behind a ref between the snapshot the model read and the
// action: the button shown as "Save draft" becomes "Delete account" (or a text field becomes a
// checkbox). Every action that takes a ref must compare the element's current role and name with
// what the model was shown, refuse a changed target with its new name, and name what it acted on.

/** What the page is told to show, and which clicks and inputs reached the server. */
const state = { mode: 'save', clicks: [] as string[] };

const PAGE = `<!doctype html><title>Drafts</title>
<button id="b" onclick="fetch('/clicked?name=' + encodeURIComponent(this.textContent))">Save draft</button>
<input id="t" aria-label="Draft title" oninput="fetch('/clicked?name=typed:' + encodeURIComponent(this.getAttribute('aria-label')))">
<script>
  // The page asks its server what to show, as a page reacting to a remote push would.
  setInterval(async () => {
    const mode = await (await fetch('/mode')).text();
    const button = document.getElementById('b');
    const field = document.getElementById('t');
    const wanted = mode === 'delete' ? 'Delete account' : 'Save draft';
    if (button.textContent !== wanted) button.textContent = wanted;
    const label = mode === 'delete' ? 'New password' : 'Draft title';
    if (field.getAttribute('aria-label') !== label) field.setAttribute('aria-label', label);
  }, 25);
</script>`;

let harness: BrowserHarness;
let server: Server;
let origin: string;

beforeAll(async () => {
  harness = await createBrowserHarness();
  server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/mode') return response.end(state.mode);
    if (url.pathname === '/clicked') {
      state.clicks.push(url.searchParams.get('name') ?? '');
      return response.end('ok');
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await harness?.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
}, 60_000);

beforeEach(() => {
  state.mode = 'save';
  state.clicks = [];
});

/** Navigates a fresh session and returns the ref of the line that matches `pattern`. */
async function refOf(session: string, pattern: RegExp): Promise<string> {
  await harness.text('browser_navigate', { url: `${origin}/` }, session);
  const snapshot = await harness.text('browser_snapshot', {}, session);
  const line = snapshot.split('\n').find((entry) => pattern.test(entry));
  const ref = /\[ref=(e\d+)\]/.exec(line ?? '')?.[1];
  expect(ref, snapshot).toBeDefined();
  return ref as string;
}

/** Switches the page to its other names and waits until the page shows them. */
async function swap(): Promise<void> {
  state.mode = 'delete';
  // The page polls every 25 ms; a generous wait for a loaded machine.
  await new Promise((resolve) => setTimeout(resolve, 600));
}

describe('an action on a ref whose element changed since the snapshot', () => {
  it('browser_click refuses a button renamed after the snapshot, naming its new name', async () => {
    const ref = await refOf('rename-click', /button "Save draft"/);
    await swap();
    const text = await harness.text('browser_click', { ref }, 'rename-click');
    expect(text).toMatch(/^Error: \[EXECUTION_FAILED\] ref: /);
    expect(text).toContain(`was shown as button "Save draft"`);
    expect(text).toContain('is now button "Delete account"');
    expect(text).toContain('browser_snapshot');
    // Nothing was clicked.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(state.clicks).toEqual([]);
  }, 60_000);

  it('after a new snapshot the click goes through and names what it clicked', async () => {
    await refOf('rename-again', /button "Save draft"/);
    await swap();
    const snapshot = await harness.text('browser_snapshot', {}, 'rename-again');
    const ref = /button "Delete account" \[ref=(e\d+)\]/.exec(snapshot)?.[1];
    expect(ref, snapshot).toBeDefined();
    const text = await harness.text('browser_click', { ref, snapshot: 'none' }, 'rename-again');
    expect(text.split('\n')[0]).toBe(`Clicked button "Delete account" [ref=${ref}].`);
    await expect.poll(() => state.clicks, { timeout: 5_000 }).toEqual(['Delete account']);
  }, 60_000);

  it('browser_input refuses a field relabelled after the snapshot', async () => {
    const ref = await refOf('rename-input', /textbox "Draft title"/);
    await swap();
    const text = await harness.text('browser_input', { ref, text: 'hunter2' }, 'rename-input');
    expect(text).toMatch(/^Error: \[EXECUTION_FAILED\] ref: /);
    expect(text).toContain('is now textbox "New password"');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(state.clicks).toEqual([]);
  }, 60_000);

  it('an unchanged target is acted on, and the result names it', async () => {
    const ref = await refOf('unchanged', /button "Save draft"/);
    const text = await harness.text('browser_click', { ref, snapshot: 'none' }, 'unchanged');
    expect(text.split('\n')[0]).toBe(`Clicked button "Save draft" [ref=${ref}].`);
    await expect.poll(() => state.clicks, { timeout: 5_000 }).toEqual(['Save draft']);
  }, 60_000);
});

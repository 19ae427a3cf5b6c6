import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness.js';
import { type PageServer, startPageServer } from './support.js';

// On a replica named replica1, tab ids are handles that name it (real Chromium, pages from a
// local server on 127.0.0.1); a tab id of another replica says that replica holds it.

let harness: Harness;
let server: PageServer;

beforeAll(async () => {
  harness = await createHarness({ manager: { replicaName: 'replica1' } });
  server = await startPageServer();
}, 60_000);

afterAll(async () => {
  await harness?.close();
  await server?.close();
});

describe('browser tabs on a named replica', { timeout: 60_000 }, () => {
  it('are handles naming the replica, usable as the tab argument', async () => {
    const opened = await harness.text(
      'browser_navigate',
      { url: `${server.origin}/other.html` },
      'named',
    );
    const id = /Tab (replica1\.tab-[0-9a-f]{32}):/.exec(opened)?.[1];
    expect(id, opened).toBeDefined();
    const selected = await harness.text('browser_show', { action: 'select', tab: id }, 'named');
    expect(selected.split('\n')[0]).toBe(`Tab ${id} is now in front and active.`);
  });

  it("answer a tab id of another replica with that replica's name, and an unknown one as before", async () => {
    await harness.text('browser_navigate', { url: `${server.origin}/other.html` }, 'named');
    const foreign = `replica2.tab-${'0'.repeat(32)}`;
    const elsewhere = await harness.text(
      'browser_show',
      { action: 'select', tab: foreign },
      'named',
    );
    expect(elsewhere).toContain(
      `Error: [NOT_FOUND] tab: browser tab "${foreign}" belongs to replica "replica2", but this request reached replica "replica1"`,
    );
    expect(elsewhere).toContain('Open the page again with browser_navigate');
    const mine = `replica1.tab-${'0'.repeat(32)}`;
    const unknown = await harness.text('browser_show', { action: 'select', tab: mine }, 'named');
    expect(unknown).toMatch(new RegExp(`^Error: \\[NOT_FOUND\\] tab: no open tab "${mine}"`));
  });
});

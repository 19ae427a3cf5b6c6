import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

/** A local HTTP server on 127.0.0.1 serving the test pages. */
export interface PageServer {
  readonly origin: string;
  /** The streams served by `/bytes/<name>?size=N`, oldest first: bytes sent, whether all were. */
  readonly streams: readonly ServedStream[];
  close(): Promise<void>;
}

/** One response of `/bytes/…`: how far it got before it ended or the browser hung up. */
export interface ServedStream {
  readonly name: string;
  readonly size: number;
  sent: number;
  finished: boolean;
}

/**
 * Builds a page whose button "Download all" starts one download per name (`/download/<name>`),
 * or per `/bytes/<name>?size=N` when `size` is given.
 */
export function downloadsPage(names: readonly string[], size?: number): string {
  const links = names
    .map(
      (name) =>
        `<a class="file" href="${size === undefined ? `/download/${name}` : `/bytes/${name}?size=${size}`}" download>${name}</a>`,
    )
    .join(' ');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Files</title></head><body><h1>Files</h1><p>${links}</p><button onclick="for (const link of document.querySelectorAll('a.file')) link.click()">Download all</button></body></html>`;
}

/** Builds an HTML table page with `rows` rows, each with a link and a button. */
export function tablePage(rows: number): string {
  const body = Array.from(
    { length: rows },
    (_, index) =>
      `<tr><td>Item ${index + 1}</td><td>${(index * 37) % 1000} units</td><td><a href="/item/${index + 1}">Open</a></td><td><button>Delete</button></td></tr>`,
  ).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Inventory</title></head><body><h1>Inventory</h1><table><thead><tr><th>Name</th><th>Stock</th><th>Link</th><th>Action</th></tr></thead><tbody>${body}</tbody></table><button>Next page</button></body></html>`;
}

/**
 * Builds a long page of `count` chapters, each a heading, a paragraph and a button that writes
 * the status line. Headings, paragraphs and buttons alternate, so nothing is collapsed as a
 * repeated run: past about 120 chapters the page does not fit the 6,000-token default budget.
 * `note` is shown in the first paragraph.
 */
export function chaptersPage(count: number, note = ''): string {
  const chapters = Array.from(
    { length: count },
    (_, index) =>
      `<h2>Chapter ${index + 1}</h2><p>${index === 0 ? `${note} ` : ''}Chapter ${index + 1} explains how part ${index + 1} of the pipeline checks a call before it runs and what the model reads back when it may not.</p><button type="button" data-chapter="${index + 1}">Mark chapter ${index + 1} read</button>`,
  ).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Chapters</title></head><body><h1>Chapters</h1><p id="status">Read: none</p>${chapters}<script>document.addEventListener('click', (event) => { const chapter = event.target.dataset && event.target.dataset.chapter; if (chapter) document.getElementById('status').textContent = 'Read: chapter ' + chapter; });</script></body></html>`;
}

/**
 * Builds a feed page: a heading, a status line and `posts` list items with a link each and a
 * button on every second one (so no run of items has one shape and none is collapsed).
 */
export function feedPage(posts: number): string {
  const items = Array.from(
    { length: posts },
    (_, index) =>
      `<li>Post ${index + 1}: notes on item ${index + 1} <a href="/post/${index + 1}">Open</a>${index % 2 === 1 ? '<button onclick="this.textContent = \'Liked\'">Like</button>' : ''}</li>`,
  ).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Feed</title></head><body><h1>Feed</h1><p id="status">Status: 0 new</p><ul id="posts">${items}</ul><p>End of feed</p></body></html>`;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json',
};

/**
 * Starts the fixture server on a free loopback port. `pages` adds HTML pages by path
 * (`{ '/attack': '<!doctype html>…' }`).
 */
export async function startPageServer(
  pages: Readonly<Record<string, string>> = {},
): Promise<PageServer> {
  const streams: ServedStream[] = [];
  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const page = pages[url.pathname];
    if (page !== undefined) {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(page);
      return;
    }
    if (url.pathname === '/downloads') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      const size = url.searchParams.get('size');
      response.end(
        downloadsPage(
          (url.searchParams.get('files') ?? 'a.txt').split(','),
          size === null ? undefined : Number(size),
        ),
      );
      return;
    }
    if (url.pathname.startsWith('/bytes/')) {
      // Streams `size` bytes, 64 KiB a millisecond at most (a fast server, not an instant one).
      const stream: ServedStream = {
        name: url.pathname.slice(7),
        size: Number(url.searchParams.get('size') ?? '1024'),
        sent: 0,
        finished: false,
      };
      streams.push(stream);
      response.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-disposition': `attachment; filename="${stream.name}"`,
      });
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      const pump = () => {
        if (response.destroyed) return;
        if (stream.sent >= stream.size) {
          stream.finished = true;
          response.end();
          return;
        }
        const part = chunk.subarray(0, Math.min(chunk.length, stream.size - stream.sent));
        stream.sent += part.length;
        if (response.write(part)) setTimeout(pump, 1);
        else response.once('drain', () => setTimeout(pump, 1));
      };
      pump();
      return;
    }
    if (url.pathname === '/table') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(tablePage(Number(url.searchParams.get('rows') ?? '10')));
      return;
    }
    if (url.pathname === '/chapters') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(
        chaptersPage(
          Number(url.searchParams.get('count') ?? '10'),
          url.searchParams.get('note') ?? '',
        ),
      );
      return;
    }
    if (url.pathname === '/feed') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(feedPage(Number(url.searchParams.get('posts') ?? '10')));
      return;
    }
    if (url.pathname.startsWith('/download/')) {
      response.writeHead(200, {
        'content-type': 'text/plain',
        'content-disposition': `attachment; filename="${url.pathname.slice(10)}"`,
      });
      response.end('quarterly report\n');
      return;
    }
    if (url.pathname === '/slow') {
      // Sends the head of a page and never finishes it: the load event never fires.
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.write('<!doctype html><title>Slow</title><p>Still loading');
      return;
    }
    if (url.pathname === '/covered') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(
        '<!doctype html><title>Covered</title><button>Under</button><div style="position:fixed;inset:0;background:white"></div>',
      );
      return;
    }
    if (url.pathname === '/to-metadata') {
      response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
      response.end();
      return;
    }
    if (url.pathname === '/api/data.json') {
      response.writeHead(200, { 'content-type': 'application/json', 'set-cookie': 'sid=abc' });
      response.end('{"items":[1,2,3]}');
      return;
    }
    const name = url.pathname === '/' ? 'form.html' : url.pathname.slice(1);
    try {
      if (name.includes('..')) throw new Error('no');
      const body = await readFile(join(FIXTURES, name));
      response.writeHead(200, { 'content-type': TYPES[extname(name)] ?? 'text/plain' });
      response.end(body);
    } catch {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    streams,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

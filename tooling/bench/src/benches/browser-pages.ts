/**
 * The pages the browser bench reads: five generated pages (docs, table, form, cards, app), each
 * with a click counter, and real prose pages of Python's HTML docs, served on 127.0.0.1.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { extname, resolve, sep } from 'node:path';

/** Name of the button every page has; clicking it rewrites a status line (`Clicked N times`). */
export const COUNTER = 'Count clicks';

/**
 * Real documentation pages nobody here wrote: Python's HTML docs from Debian's `python3-doc`
 * (`apt-get install -y python3-doc`, done by scripts/setup.sh), served from this folder.
 */
export const PYTHON_DOCS = '/usr/share/doc/python3/html';
/** Prose pages of the Python docs, small to large; `quick` takes the first two. */
export const PYTHON_DOC_PAGES = [
  'tutorial/classes.html',
  'tutorial/controlflow.html',
  'glossary.html',
  'reference/expressions.html',
  'library/functions.html',
  'library/stdtypes.html',
];
/** Content types of the files of the Python docs. */
const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
};

/** One generated page: a path on the local server and its HTML. */
export interface BenchPage {
  readonly name: string;
  readonly html: string;
}

function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<style>body{font-family:sans-serif;margin:16px}.card{border:1px solid #ccc;padding:8px;margin:8px;display:inline-block;width:220px}</style>
</head><body>
<p id="status" role="status">Clicked 0 times</p>
<button id="counter" type="button">${COUNTER}</button>
${body}
<script>
let clicks = 0;
document.getElementById('counter').addEventListener('click', () => {
  clicks += 1;
  document.getElementById('status').textContent = 'Clicked ' + clicks + ' times';
});
</script>
</body></html>`;
}

const WORDS =
  'the request passes through the pipeline where every gate decides whether the call may run and what the model reads back when it may not'.split(
    ' ',
  );

function sentence(seed: number, length: number): string {
  const words: string[] = [];
  for (let index = 0; index < length; index += 1) {
    words.push(WORDS[(seed * 7 + index * 3) % WORDS.length] as string);
  }
  const text = words.join(' ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

function docsPage(sections: number): BenchPage {
  const toc = Array.from(
    { length: sections },
    (_, index) => `<li><a href="#s${index + 1}">Chapter ${index + 1}</a></li>`,
  ).join('');
  const body = Array.from({ length: sections }, (_, index) => {
    const paragraphs = Array.from(
      { length: 3 },
      (__, paragraph) =>
        `<p>${sentence(index * 3 + paragraph, 40)} ${sentence(index + paragraph, 25)}</p>`,
    ).join('');
    return `<section id="s${index + 1}"><h2>Chapter ${index + 1}: configuring part ${index + 1}</h2>${paragraphs}
<pre><code>toolsys call read_file '{"path":"docs/part-${index + 1}.md"}'</code></pre>
<button type="button">Copy example ${index + 1}</button>
<p>See also <a href="#s${((index + 1) % sections) + 1}">the next chapter after ${index + 1}</a>.</p></section>`;
  }).join('\n');
  return {
    name: 'docs',
    html: layout(
      'Docs',
      `<header><h1>Toolsys guide</h1><label>Search the docs <input type="search"></label></header>
<nav aria-label="Contents"><ul>${toc}</ul></nav><main>${body}</main>`,
    ),
  };
}

function tablePage(rows: number): BenchPage {
  const statuses = ['paid', 'pending', 'shipped', 'refunded'];
  const lines = Array.from({ length: rows }, (_, index) => {
    const id = 10_001 + index;
    return `<tr><td>${id}</td><td>Customer ${index + 1}</td><td>customer${index + 1}@example.com</td><td>${statuses[index % 4]}</td><td>${(index * 37) % 1000}.${index % 100} EUR</td><td><a href="#order-${id}">Order ${id}</a></td><td><input type="checkbox" aria-label="Select order ${id}"></td></tr>`;
  }).join('\n');
  return {
    name: 'table',
    html: layout(
      'Orders',
      `<h1>Orders</h1><table><thead><tr><th>Id</th><th>Customer</th><th>Email</th><th>Status</th><th>Total</th><th>Link</th><th>Select</th></tr></thead><tbody>${lines}</tbody></table>`,
    ),
  };
}

function formPage(groups: number): BenchPage {
  const fieldsets = Array.from({ length: groups }, (_, index) => {
    const n = index + 1;
    return `<fieldset><legend>Section ${n}</legend>
<label for="first-${n}">First name ${n}</label><input id="first-${n}" type="text">
<label for="email-${n}">Email ${n}</label><input id="email-${n}" type="email">
<label for="phone-${n}">Phone ${n}</label><input id="phone-${n}" type="tel">
<label for="qty-${n}">Quantity ${n}</label><input id="qty-${n}" type="number" min="0">
<label for="date-${n}">Delivery date ${n}</label><input id="date-${n}" type="date">
<label for="country-${n}">Country ${n}</label><select id="country-${n}"><option>France</option><option>Germany</option><option>Japan</option><option>Brazil</option></select>
<label><input type="checkbox"> Gift wrap ${n}</label>
<label><input type="radio" name="speed-${n}" value="normal"> Normal shipping ${n}</label>
<label><input type="radio" name="speed-${n}" value="express"> Express shipping ${n}</label>
<label for="notes-${n}">Notes ${n}</label><textarea id="notes-${n}"></textarea>
</fieldset>`;
  }).join('\n');
  return {
    name: 'form',
    html: layout(
      'Order form',
      `<h1>Order form</h1><form onsubmit="return false">${fieldsets}<button type="submit">Place order</button><button type="reset">Clear the form</button></form>`,
    ),
  };
}

function cardsPage(cards: number): BenchPage {
  const items = Array.from({ length: cards }, (_, index) => {
    const n = index + 1;
    return `<article class="card"><img alt="Photo of product ${n}" width="200" height="120" src="data:image/gif;base64,R0lGODlhAQABAAAAACw="><h3>Product ${n}</h3><p>${sentence(n, 18)}</p><p>${(n * 13) % 200}.99 EUR</p><button type="button">Add product ${n} to cart</button> <a href="#p${n}">Details of product ${n}</a></article>`;
  }).join('\n');
  return {
    name: 'cards',
    html: layout('Shop', `<h1>Shop</h1><section aria-label="Products">${items}</section>`),
  };
}

function appPage(messages: number): BenchPage {
  const nav = Array.from(
    { length: 12 },
    (_, index) => `<li><a href="#folder-${index + 1}">Folder ${index + 1}</a></li>`,
  ).join('');
  const list = Array.from({ length: messages }, (_, index) => {
    const n = index + 1;
    return `<li><h3>Message ${n} from Sender ${n}</h3><p>${sentence(n, 14)}</p><button type="button">Reply to message ${n}</button><button type="button">Archive message ${n}</button></li>`;
  }).join('\n');
  return {
    name: 'app',
    html: layout(
      'Inbox',
      `<header><h1>Inbox</h1><input type="search" aria-label="Search mail"><button type="button" aria-label="Settings">⚙</button></header>
<nav aria-label="Folders"><ul>${nav}</ul></nav>
<div role="tablist"><button role="tab" aria-selected="true">Primary</button><button role="tab" aria-selected="false">Social</button><button role="tab" aria-selected="false">Updates</button></div>
<div role="toolbar" aria-label="Actions"><button type="button">Compose</button><button type="button">Refresh</button><button type="button" disabled>Delete selected</button><label><input type="checkbox" role="switch"> Dark mode</label></div>
<main><ul>${list}</ul></main>
<details><summary>Keyboard shortcuts</summary><p>Press c to compose.</p></details>`,
    ),
  };
}

/** The five pages of the issue; `quick` shrinks them. */
export function benchPages(quick: boolean): BenchPage[] {
  return [
    docsPage(quick ? 10 : 40),
    tablePage(quick ? 200 : 2_000),
    formPage(quick ? 4 : 12),
    cardsPage(quick ? 20 : 60),
    appPage(quick ? 15 : 50),
  ];
}

/** Where the Python docs are served on the bench's server. */
export const DOCS_PREFIX = '/python-docs/';

/** Serves the generated pages and the Python docs on a free port of 127.0.0.1. */
export function serve(pages: readonly BenchPage[]): Promise<{ server: Server; origin: string }> {
  const byPath = new Map(pages.map((page) => [`/${page.name}`, page.html]));
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split(/[?#]/)[0] as string;
    if (path.startsWith(DOCS_PREFIX)) {
      serveDocsFile(decodeURIComponent(path.slice(DOCS_PREFIX.length)), response);
      return;
    }
    const html = byPath.get(path);
    if (html === undefined) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  return new Promise((resolveServe, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      resolveServe({ server, origin: `http://127.0.0.1:${port}` });
    });
  });
}

/** Serves one file of the Python docs, never anything outside their folder. */
function serveDocsFile(relative: string, response: ServerResponse): void {
  const file = resolve(PYTHON_DOCS, relative);
  if (!file.startsWith(`${PYTHON_DOCS}${sep}`)) {
    response.writeHead(403, { 'content-type': 'text/plain' }).end('outside the docs');
    return;
  }
  readFile(file).then(
    (body) =>
      response
        .writeHead(200, {
          'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
        })
        .end(body),
    () => response.writeHead(404, { 'content-type': 'text/plain' }).end('not found'),
  );
}

#!/usr/bin/env node
// web_scrape: fetch a public page and extract title, selected text and links. No dependencies.
// Usage: scrape.mjs <url> [selector] [max_chars]
// Exit codes: 0 ok, 1 fetch failed, 2 bad arguments, 3 refused (private or internal address).
import { lookup } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';

const MAX_BYTES = 2 * 1024 * 1024;
const TIMEOUT_MS = 20_000;
const MAX_REDIRECTS = 5;
const MAX_LINKS = 50;

class Refused extends Error {}

function fail(code, message) {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

const [rawUrl = '', selector = '', rawMax = ''] = process.argv.slice(2);
let startUrl;
try {
  startUrl = new URL(rawUrl);
} catch {
  fail(2, `url: "${rawUrl}" is not a valid URL`);
}
if (startUrl.protocol !== 'http:' && startUrl.protocol !== 'https:') {
  fail(2, 'url: only http and https URLs are supported');
}
if (selector !== '' && !/^([#.]?[A-Za-z][\w-]*)$/.test(selector)) {
  fail(2, 'selector: use a tag name (h2), an #id or a .class');
}
const maxChars = rawMax === '' ? 8000 : Number(rawMax);
if (!Number.isInteger(maxChars) || maxChars < 200 || maxChars > 50_000) {
  fail(2, 'max_chars: an integer between 200 and 50000');
}

const allowAllPrivate = process.env.WEB_SCRAPE_ALLOW_PRIVATE === '1';
const allowedHosts = new Set(
  (process.env.WEB_SCRAPE_ALLOW_HOSTS ?? '')
    .split(',')
    .map((host) => host.trim().toLowerCase())
    .filter(Boolean),
);
const METADATA = new Set(['169.254.169.254', '100.100.100.200', 'fd00:ec2::254']);

function ipv4Blocked(address) {
  const [a, b] = address.split('.').map(Number);
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 198 && (b === 18 || b === 19)) ||
    a >= 224
  );
}

function ipv6Blocked(address) {
  const lower = address.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped) return ipv4Blocked(mapped[1]);
  if (lower.startsWith('::ffff:')) return true;
  return (
    lower === '::' ||
    lower === '::1' ||
    /^f[cd]/.test(lower) ||
    /^fe[89ab]/.test(lower) ||
    lower.startsWith('ff') ||
    lower.startsWith('64:ff9b:') ||
    lower.startsWith('2002:') ||
    lower.startsWith('2001:0:')
  );
}

function checkAddress(address, host) {
  const family = isIP(address);
  const metadata = METADATA.has(address.toLowerCase());
  const blocked = metadata || (family === 4 ? ipv4Blocked(address) : ipv6Blocked(address));
  if (!blocked) return;
  if (allowedHosts.has(host.toLowerCase()) || allowedHosts.has(address.toLowerCase())) return;
  if (allowAllPrivate && !metadata) return;
  throw new Refused(`refused: ${host} (${address}) is a private or internal address`);
}

function guardedLookup(hostname, options, callback) {
  lookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
    if (error) return callback(error);
    try {
      for (const entry of addresses) checkAddress(entry.address, hostname);
    } catch (refusal) {
      return callback(refusal);
    }
    if (options.all) return callback(null, addresses);
    const first = addresses[0];
    return callback(null, first.address, first.family);
  });
}

function get(url) {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) checkAddress(host, host);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(url, {
      method: 'GET',
      lookup: guardedLookup,
      timeout: TIMEOUT_MS,
      headers: { 'user-agent': 'Toolsys web-scrape skill', accept: 'text/html,*/*;q=0.5' },
    });
    request.on('timeout', () => request.destroy(new Error(`timed out after ${TIMEOUT_MS} ms`)));
    request.on('error', reject);
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      if ([301, 302, 303, 307, 308].includes(status) && response.headers.location) {
        response.resume();
        resolve({ redirect: new URL(response.headers.location, url) });
        return;
      }
      const chunks = [];
      let size = 0;
      response.on('data', (chunk) => {
        size += chunk.length;
        if (size > MAX_BYTES) {
          response.destroy();
          resolve({ status, body: Buffer.concat(chunks).toString('utf8'), truncated: true });
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () => resolve({ status, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.end();
  });
}

const ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(text) {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name) => {
    if (name[0] === '#') {
      const code =
        name[1].toLowerCase() === 'x' ? parseInt(name.slice(2), 16) : Number(name.slice(1));
      return Number.isFinite(code) && code > 0 && code < 0x110000
        ? String.fromCodePoint(code)
        : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

function textOf(html) {
  return decodeEntities(
    html
      .replace(/<(br|\/p|\/div|\/li|\/h[1-6]|\/tr)\b[^>]*>/gi, '\n')
      .replace(/<[^>]+>/g, ' ')
      .replace(/[ \t\f\v\r]+/g, ' ')
      .replace(/ *\n[ \n]*/g, '\n'),
  ).trim();
}

function matchesSelector(tag, attributes) {
  if (selector === '') return false;
  if (selector.startsWith('#')) {
    const id = /\bid\s*=\s*["']?([^"'\s>]+)/i.exec(attributes)?.[1];
    return id === selector.slice(1);
  }
  if (selector.startsWith('.')) {
    const classes = /\bclass\s*=\s*["']([^"']*)["']/i.exec(attributes)?.[1] ?? '';
    return classes.split(/\s+/).includes(selector.slice(1));
  }
  return tag.toLowerCase() === selector.toLowerCase();
}

/** The inner HTML of every element matching the selector (same-tag nesting is balanced). */
function selectElements(html) {
  const found = [];
  const open = /<([A-Za-z][\w-]*)([^>]*)>/g;
  for (let match = open.exec(html); match; match = open.exec(html)) {
    const [, tag, attributes] = match;
    if (!matchesSelector(tag, attributes)) continue;
    const tagPattern = new RegExp(`<(/?)${tag}\\b[^>]*>`, 'gi');
    tagPattern.lastIndex = open.lastIndex;
    let depth = 1;
    let end = html.length;
    for (let next = tagPattern.exec(html); next; next = tagPattern.exec(html)) {
      depth += next[1] === '/' ? -1 : 1;
      if (depth === 0) {
        end = next.index;
        break;
      }
    }
    found.push(html.slice(open.lastIndex, end));
    if (found.length >= 200) break;
  }
  return found;
}

async function main() {
  let url = startUrl;
  let page;
  for (let hops = 0; ; hops++) {
    page = await get(url);
    if (!page.redirect) break;
    if (hops >= MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects`);
    url = page.redirect;
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new Refused(`refused: redirect to a ${url.protocol} URL`);
    }
  }
  if (page.status >= 400) throw new Error(`${url.href} answered HTTP ${page.status}`);
  const html = page.body
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<(script|style|noscript|template)\b[\s\S]*?<\/\1\s*>/gi, '');
  const title = textOf(/<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1] ?? '');
  const body = /<body[^>]*>([\s\S]*)<\/body>/i.exec(html)?.[1] ?? html;
  const scope = selector === '' ? [body] : selectElements(body);
  let text = scope
    .map(textOf)
    .filter(Boolean)
    .join(selector === '' ? '\n' : '\n---\n');
  const cut = text.length > maxChars;
  if (cut) text = `${text.slice(0, maxChars)}\n[cut at ${maxChars} characters]`;
  const links = [];
  const seen = new Set();
  for (const part of scope) {
    for (const match of part.matchAll(
      /<a\b[^>]*\bhref\s*=\s*["']([^"']+)["'][^>]*>([\s\S]*?)<\/a>/gi,
    )) {
      let href;
      try {
        href = new URL(decodeEntities(match[1]), url).href;
      } catch {
        continue;
      }
      if (seen.has(href) || !/^https?:/.test(href)) continue;
      seen.add(href);
      links.push(`- ${textOf(match[2]) || '(no text)'}: ${href}`);
      if (links.length >= MAX_LINKS) break;
    }
  }
  const lines = [`Title: ${title || '(none)'}`, `URL: ${url.href}`];
  if (selector !== '')
    lines.push(`Selector: ${selector} (${scope.length} match${scope.length === 1 ? '' : 'es'})`);
  if (page.truncated) lines.push(`[Only the first ${MAX_BYTES} bytes of the page were read.]`);
  lines.push('', text || '(no text)');
  if (links.length > 0) lines.push('', `Links (${links.length}):`, ...links);
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((error) => {
  if (error instanceof Refused) fail(3, error.message);
  fail(1, `fetch failed: ${error.message}`);
});

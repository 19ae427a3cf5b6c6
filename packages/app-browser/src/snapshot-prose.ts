// Prose lines: inline nodes (text, links, code) joined into one line of text and split between
// words into pieces no longer than a small page.
import type { AriaNode } from './aria-tree.js';
import {
  type LineOptions,
  type ListedElement,
  linkKey,
  listedElements,
  PROSE_CHUNK_CHARACTERS,
  proseText,
  QUIET_ATTRIBUTES,
  relativeUrl,
  shorten,
} from './snapshot-line-format.js';

/** Link labels in prose longer than this are shortened, their length stated. */
const LABEL_LENGTH = PROSE_CHUNK_CHARACTERS / 2;

/** A piece of a prose line: page text, code, or an inline link the model can act on. */
export interface Piece {
  readonly text: string;
  /** Page text (joined without a space before closing punctuation), else ours or code. */
  readonly kind: 'text' | 'code' | 'action';
  /** How an inline link with a ref is listed further down (none for a link within the page). */
  readonly listed?: readonly ListedElement[];
  /** The key of an inline link with a ref and a target. */
  readonly key?: string;
}

/** Link labels keep no brackets: `[` and `]` are shown as `(` and `)`. */
function labelText(text: string): string {
  return text.replace(/\[/g, '(').replace(/\]/g, ')');
}

/** The plain text of inline nodes (a link's label): text runs and names, no refs. */
function plainText(nodes: readonly AriaNode[]): string {
  const parts: string[] = [];
  const visit = (node: AriaNode) => {
    if (node.text !== undefined) parts.push(node.text);
    else if (node.role !== 'text' && node.children.length === 0 && node.name !== undefined)
      parts.push(node.name);
    for (const child of node.children) visit(child);
  };
  for (const node of nodes) visit(node);
  return parts.join(' ');
}

function hasInlineAction(node: AriaNode): boolean {
  return (
    (node.role === 'link' && node.ref !== undefined) ||
    node.children.some((child) => hasInlineAction(child))
  );
}

/** Appends the pieces of one inline node to `into`. */
export function inlinePieces(node: AriaNode, options: LineOptions, into: Piece[]): void {
  if (node.role === 'link') {
    const label = shorten(labelText(node.name ?? plainText(node.children)), LABEL_LENGTH) || 'link';
    if (node.ref === undefined) {
      into.push({ text: proseText(label), kind: 'text' });
      return;
    }
    let target = node.ref;
    for (const attribute of node.attributes) {
      if (QUIET_ATTRIBUTES.has(attribute)) continue;
      if (attribute.startsWith('url=')) {
        if (options.urls) target += ` ${relativeUrl(attribute.slice(4), options.pageUrl)}`;
        continue;
      }
      target += ` ${attribute}`;
    }
    const key = linkKey(node, label);
    into.push({
      text: `[${label}](${target})`,
      kind: 'action',
      listed: listedElements(node, options, label),
      ...(key === undefined ? {} : { key }),
    });
    return;
  }
  if (node.role === 'code' && !hasInlineAction(node)) {
    const code = node.text ?? plainText(node.children);
    if (code !== '') into.push({ text: `\`${proseText(code)}\``, kind: 'code' });
    return;
  }
  if (node.text !== undefined) into.push({ text: proseText(node.text), kind: 'text' });
  else if (node.role !== 'text' && node.children.length === 0 && node.name !== undefined) {
    into.push({ text: proseText(node.name), kind: 'text' });
  }
  for (const child of node.children) inlinePieces(child, options, into);
}

/** A segment of a prose line, with the inline actions it holds. */
export interface Segment {
  readonly text: string;
  /** How its inline links are listed further down. */
  readonly actions: ListedElement[];
  /** The keys of its inline links. */
  readonly keys: string[];
  /** Whether it holds an inline link with a ref. */
  readonly acts: boolean;
  /** Whether it holds words besides its links (a sentence, not a menu). */
  readonly prose: boolean;
}

/** Text with a letter or digit: words, not separators between links. */
const WORDY = /[\p{L}\p{N}]/u;

/** Page text starting with closing punctuation joins the piece before it without a space. */
const CLOSING = /^[,.;:!?)\]}%]/;

/**
 * Joins pieces into prose segments of at most {@link PROSE_CHUNK_CHARACTERS} characters (the
 * first `firstRoom`): page text is split between words (hard when it has no space), a link or
 * code never. Returns each segment with the actions it holds.
 */
export function joinPieces(pieces: readonly Piece[], firstRoom: number): Segment[] {
  const segments: Segment[] = [];
  let text = '';
  let actions: ListedElement[] = [];
  let keys: string[] = [];
  let acts = false;
  let prose = false;
  let room = firstRoom;
  const flush = () => {
    segments.push({ text, actions, keys, acts, prose });
    text = '';
    actions = [];
    keys = [];
    acts = false;
    prose = false;
    room = PROSE_CHUNK_CHARACTERS;
  };
  const hold = (piece: Piece) => {
    if (piece.kind !== 'action') return;
    acts = true;
    if (piece.listed !== undefined) actions.push(...piece.listed);
    if (piece.key !== undefined) keys.push(piece.key);
  };
  for (const piece of pieces) {
    if (piece.kind !== 'action' && WORDY.test(piece.text)) prose = true;
    let glue = text === '' || (piece.kind === 'text' && CLOSING.test(piece.text)) ? '' : ' ';
    const fits = text.length + glue.length + piece.text.length <= room;
    if (fits || (piece.kind !== 'text' && text === '')) {
      text += glue + piece.text;
      hold(piece);
      continue;
    }
    if (piece.kind !== 'text') {
      flush();
      text = piece.text;
      hold(piece);
      continue;
    }
    // Page text fills the segment up to a space and goes on in the next ones.
    let rest = piece.text;
    for (;;) {
      const free = room - text.length - glue.length;
      if (rest.length <= free) {
        text += glue + rest;
        break;
      }
      // Within a segment that already holds text, a word that does not fit goes to the next.
      const cut = text === '' ? Math.max(1, cutPoint(rest, free)) : softCutPoint(rest, free);
      if (cut > 0) text += glue + rest.slice(0, cut).trimEnd();
      rest = rest.slice(cut).trimStart();
      flush();
      glue = '';
      if (rest === '') break;
    }
  }
  if (text !== '' || segments.length === 0) segments.push({ text, actions, keys, acts, prose });
  return segments;
}

/** Where to cut a text to at most `room` characters at a space; 0 when there is none. */
function softCutPoint(text: string, room: number): number {
  if (room <= 0) return 0;
  const space = text.lastIndexOf(' ', room);
  return Math.max(space, 0);
}

/** Where to cut a text to at most `room` characters: at the last space, else at `room`. */
function cutPoint(text: string, room: number): number {
  if (room <= 0) return 0;
  if (text.length <= room) return text.length;
  const space = text.lastIndexOf(' ', room);
  if (space > room / 2) return space;
  // No space near the end: cut at `room`, never between the halves of a surrogate pair.
  const code = text.charCodeAt(room - 1);
  return code >= 0xd800 && code <= 0xdbff ? room - 1 : room;
}

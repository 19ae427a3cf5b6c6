/**
 * Text a person cannot see on a page (off-screen, transparent, zero-size, the colour of its
 * background, clipped away) still reaches the accessibility tree. The snapshot flags it as
 * `[hidden: …]`, as it removes invisible characters, so instructions a page hides from its reader
 * never read as ordinary page text.
 */

/** Most text nodes the page-side check looks at; past it, the rest of a page is not checked. */
export const MAX_CHECKED_TEXT_NODES = 50_000;
/** Most characters of hidden text kept per page (the rest is not flagged). */
export const MAX_HIDDEN_CHARACTERS = 1_000_000;

/** What the page-side check found: texts no person can see, and texts some person can see. */
export interface HiddenTextReport {
  /** Whitespace-collapsed texts of text nodes a person cannot see. */
  readonly hidden: readonly string[];
  /** Whether the page had more text nodes than were checked. */
  readonly truncated: boolean;
}

/**
 * Runs in the page (passed to `page.evaluate`, so it must not use anything from outside): walks
 * the text nodes and returns the texts a person cannot see, except those that also appear where
 * a person can see them (showing those is harmless). Bounded by `limits`.
 */
export function findHiddenTextsInPage(limits: {
  maxNodes: number;
  maxCharacters: number;
}): HiddenTextReport {
  const memo = new Map<Element, boolean>();
  const parse = (color: string): [number, number, number, number] | undefined => {
    const match = /rgba?\(([^)]+)\)/.exec(color);
    if (!match) return undefined;
    const parts = (match[1] as string)
      .split(/[\s,/]+/)
      .filter(Boolean)
      .map(Number);
    return [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0, parts[3] ?? 1];
  };
  const clipsAway = (style: CSSStyleDeclaration): boolean => {
    const clipPath = style.clipPath;
    if (
      clipPath &&
      clipPath !== 'none' &&
      /inset\(\s*(?:50|100)%|(?:circle|ellipse)\(\s*0(?:px|%)?[\s)]/.test(clipPath)
    ) {
      return true;
    }
    const clip = /rect\(([^)]*)\)/.exec(style.clip ?? '');
    if (clip && (style.position === 'absolute' || style.position === 'fixed')) {
      const [top, right, bottom, left] = (clip[1] as string)
        .split(/[\s,]+/)
        .map((part) => Number.parseFloat(part) || 0);
      if ((right ?? 0) - (left ?? 0) <= 1 || (bottom ?? 0) - (top ?? 0) <= 1) return true;
    }
    return false;
  };
  /** Whether an element (or an ancestor) hides what it holds from a person. */
  const hides = (element: Element | null): boolean => {
    if (element === null) return false;
    const known = memo.get(element);
    if (known !== undefined) return known;
    const style = getComputedStyle(element);
    let hidden =
      Number.parseFloat(style.opacity) <= 0.02 ||
      style.visibility === 'hidden' ||
      style.visibility === 'collapse' ||
      clipsAway(style);
    if (!hidden && style.overflow !== 'visible') {
      const box = element.getBoundingClientRect();
      hidden = box.width <= 1 || box.height <= 1;
    }
    hidden ||= hides(element.parentElement);
    memo.set(element, hidden);
    return hidden;
  };
  /** The colour behind an element: the first ancestor background that is not transparent. */
  const background = (element: Element | null): [number, number, number, number] | undefined => {
    for (let current = element; current !== null; current = current.parentElement) {
      const style = getComputedStyle(current);
      if (style.backgroundImage && style.backgroundImage !== 'none') return undefined;
      const color = parse(style.backgroundColor);
      if (color && color[3] > 0.9) return color;
    }
    return [255, 255, 255, 1];
  };
  const invisibleColour = (element: Element): boolean => {
    const style = getComputedStyle(element);
    if (Number.parseFloat(style.fontSize) < 2) return true;
    const color = parse(style.color);
    if (!color) return false;
    if (color[3] <= 0.05) return true;
    const behind = background(element);
    if (!behind) return false;
    const distance =
      Math.abs(color[0] - behind[0]) +
      Math.abs(color[1] - behind[1]) +
      Math.abs(color[2] - behind[2]);
    return distance <= 24;
  };
  const root = document.documentElement;
  const width = Math.max(root.scrollWidth, root.clientWidth);
  const height = Math.max(root.scrollHeight, root.clientHeight);
  const range = document.createRange();
  const hidden = new Set<string>();
  const visible = new Set<string>();
  let characters = 0;
  let checked = 0;
  let truncated = false;
  const walker = document.createTreeWalker(document.body ?? root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
    const text = (node.nodeValue ?? '').replace(/\s+/g, ' ').trim();
    if (text.length < 2) continue;
    const parent = node.parentElement;
    if (parent === null || parent.closest('script,style,noscript,template') !== null) continue;
    checked += 1;
    if (checked > limits.maxNodes) {
      truncated = true;
      break;
    }
    let isHidden = hides(parent) || invisibleColour(parent);
    if (!isHidden) {
      range.selectNodeContents(node);
      const box = range.getBoundingClientRect();
      const left = box.left + window.scrollX;
      const top = box.top + window.scrollY;
      isHidden =
        box.width < 1 ||
        box.height < 1 ||
        left + box.width <= 0 ||
        top + box.height <= 0 ||
        left >= width ||
        top >= height;
    }
    if (!isHidden) visible.add(text);
    else if (characters + text.length <= limits.maxCharacters) {
      hidden.add(text);
      characters += text.length;
    }
  }
  return { hidden: [...hidden].filter((text) => !visible.has(text)), truncated };
}

/** Flags hidden page text inside texts of a snapshot. */
export type HiddenTextMarker = (text: string) => string;

/** At most this many hidden texts are looked for inside longer texts (exact matches: all). */
const MAX_SUBSTRING_SEARCHES = 200;

/**
 * Builds the marker of a page's hidden texts (already cleaned as page text is): a text equal to
 * a hidden text is shown as `[hidden: text]`; a text that holds one (a button whose name joins a
 * visible and a hidden part) has that part shown so.
 */
export function hiddenTextMarker(hiddenTexts: readonly string[]): HiddenTextMarker | undefined {
  const exact = new Set(hiddenTexts.filter((text) => text.length >= 2));
  if (exact.size === 0) return undefined;
  const parts = [...exact]
    .filter((text) => text.length >= 4)
    .sort((a, b) => b.length - a.length)
    .slice(0, MAX_SUBSTRING_SEARCHES);
  return (text) => {
    if (exact.has(text)) return flag(text);
    let marked = text;
    for (const part of parts) {
      if (part.length >= marked.length || !marked.includes(part)) continue;
      marked = marked.split(part).join(flag(part));
    }
    return marked;
  };
}

function flag(text: string): string {
  return `[hidden: ${text}]`;
}

/**
 * The page-side check of text a person cannot see, as JavaScript source run with
 * `page.evaluate`: kept as text so no build step (a bundler's name helpers) can add references
 * the page does not have. `findHiddenTextsInPage(limits)` walks the text nodes (at most
 * `limits.maxNodes`, for at most `limits.maxMs`) and returns `{ hidden, truncated }`: the whitespace-collapsed texts no
 * person can see (off-screen, transparent, zero-size, the colour of their background, clipped
 * away, `visibility: hidden`), except those also shown where a person can see them, at most
 * `limits.maxCharacters` characters of them.
 */
export const FIND_HIDDEN_TEXTS_SOURCE = String.raw`function findHiddenTextsInPage(limits) {
    const memo = new Map();
    const parse = (color) => {
        const match = /rgba?\(([^)]+)\)/.exec(color);
        if (!match)
            return undefined;
        const parts = match[1]
            .split(/[\s,/]+/)
            .filter(Boolean)
            .map(Number);
        return [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0, parts[3] ?? 1];
    };
    const clipsAway = (style) => {
        const clipPath = style.clipPath;
        if (clipPath &&
            clipPath !== 'none' &&
            /inset\(\s*(?:50|100)%|(?:circle|ellipse)\(\s*0(?:px|%)?[\s)]/.test(clipPath)) {
            return true;
        }
        const clip = /rect\(([^)]*)\)/.exec(style.clip ?? '');
        if (clip && (style.position === 'absolute' || style.position === 'fixed')) {
            const [top, right, bottom, left] = clip[1]
                .split(/[\s,]+/)
                .map((part) => Number.parseFloat(part) || 0);
            if ((right ?? 0) - (left ?? 0) <= 1 || (bottom ?? 0) - (top ?? 0) <= 1)
                return true;
        }
        return false;
    };
    const hides = (element) => {
        if (element === null)
            return false;
        const known = memo.get(element);
        if (known !== undefined)
            return known;
        const style = getComputedStyle(element);
        let hidden = Number.parseFloat(style.opacity) <= 0.02 ||
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
    const backgrounds = new Map();
    const background = (element) => {
        if (element === null)
            return [255, 255, 255, 1];
        if (backgrounds.has(element))
            return backgrounds.get(element);
        const found = backgroundOf(element);
        backgrounds.set(element, found);
        return found;
    };
    const backgroundOf = (element) => {
        for (let current = element; current !== null; current = current.parentElement) {
            const style = getComputedStyle(current);
            if (style.backgroundImage && style.backgroundImage !== 'none')
                return undefined;
            const color = parse(style.backgroundColor);
            if (color && color[3] > 0.9)
                return color;
        }
        return [255, 255, 255, 1];
    };
    const invisibleColour = (element) => {
        const style = getComputedStyle(element);
        if (Number.parseFloat(style.fontSize) < 2)
            return true;
        const color = parse(style.color);
        if (!color)
            return false;
        if (color[3] <= 0.05)
            return true;
        const behind = background(element);
        if (!behind)
            return false;
        const distance = Math.abs(color[0] - behind[0]) +
            Math.abs(color[1] - behind[1]) +
            Math.abs(color[2] - behind[2]);
        return distance <= 24;
    };
    const root = document.documentElement;
    const width = Math.max(root.scrollWidth, root.clientWidth);
    const height = Math.max(root.scrollHeight, root.clientHeight);
    const range = document.createRange();
    const hidden = new Set();
    const visible = new Set();
    let characters = 0;
    let checked = 0;
    let truncated = false;
    const stopAt = performance.now() + limits.maxMs;
    const walker = document.createTreeWalker(document.body ?? root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
        const text = (node.nodeValue ?? '').replace(/\s+/g, ' ').trim();
        if (text.length < 2)
            continue;
        const parent = node.parentElement;
        if (parent === null || parent.closest('script,style,noscript,template') !== null)
            continue;
        checked += 1;
        if (checked > limits.maxNodes || (checked % 256 === 0 && performance.now() > stopAt)) {
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
        if (!isHidden)
            visible.add(text);
        else if (characters + text.length <= limits.maxCharacters) {
            hidden.add(text);
            characters += text.length;
        }
    }
    return { hidden: [...hidden].filter((text) => !visible.has(text)), truncated };
}`;

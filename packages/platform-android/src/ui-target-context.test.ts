import { describe, expect, it } from 'vitest';
import { assignRefs, flattenNodes, parseUiHierarchy, type UiNode } from './ui-hierarchy.js';
import { sameContext, targetContext } from './ui-target-context.js';

function node(attributes: string, children = ''): string {
  return `<node index="0" ${attributes} package="p" enabled="true" bounds="[0,0][10,10]">${children}</node>`;
}

function screen(body: string): UiNode[] {
  const roots = parseUiHierarchy(`<hierarchy rotation="0">${body}</hierarchy>`);
  assignRefs(roots);
  return roots;
}

function find(roots: UiNode[], text: string): UiNode {
  const found = flattenNodes(roots).find((candidate) => candidate.text === text);
  if (!found) throw new Error(`no node "${text}"`);
  return found;
}

const dialog = (message: string) =>
  screen(
    node(
      'class="android.widget.FrameLayout" text=""',
      node(`class="android.widget.TextView" text="${message}"`) +
        node(
          'class="android.widget.LinearLayout" text=""',
          node('class="android.widget.Button" text="Cancel" clickable="true"') +
            node('class="android.widget.Button" text="OK" clickable="true"'),
        ),
    ),
  );

describe('targetContext', () => {
  it('reads the message and the other buttons of the dialog around a button', () => {
    const roots = dialog('Save your draft?');
    expect(targetContext(roots, find(roots, 'OK'))).toEqual({
      labels: ['Save your draft?', 'Cancel'],
      headline: 'Save your draft?',
    });
  });

  it('tells a swapped message apart while the button keeps its ref', () => {
    const before = dialog('Save your draft?');
    const after = dialog('Factory reset: erase ALL data?');
    const okBefore = find(before, 'OK');
    const okAfter = find(after, 'OK');
    expect(okAfter.ref).toBe(okBefore.ref);
    const seen = targetContext(before, okBefore);
    const now = targetContext(after, okAfter);
    expect(seen && now && sameContext(seen, now)).toBe(false);
    expect(
      seen && sameContext(seen, targetContext(dialog('Save your draft?'), okBefore) ?? seen),
    ).toBe(true);
  });

  it('stops below a scrolling list: rows coming and going are not the context', () => {
    const roots = screen(
      node(
        'class="android.widget.ListView" text="" scrollable="true"',
        node('class="android.widget.TextView" text="Row 1" clickable="true"') +
          node('class="android.widget.TextView" text="Row 2"'),
      ),
    );
    expect(targetContext(roots, find(roots, 'Row 1'))).toEqual({ labels: [] });
  });

  it('is undefined for a node of another tree', () => {
    const roots = dialog('Save your draft?');
    expect(targetContext(dialog('x'), find(roots, 'OK'))).toBeUndefined();
  });
});

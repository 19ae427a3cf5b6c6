import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  flattenNodes,
  isActionable,
  isKeyboardWindow,
  parseUiHierarchy,
} from '../src/ui-hierarchy.js';

// A `uiautomator dump` of a real app, published elsewhere; fixtures/README.md names the source.
function dump(name: string): string {
  return readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8');
}

describe('uiautomator dump of YouTube on a Pixel (1344x2992)', () => {
  const roots = parseUiHierarchy(dump('real-uiautomator-youtube-home.xml'));
  const nodes = flattenNodes(roots);

  it('reads one window of 63 nodes from the indented XML', () => {
    expect(roots).toHaveLength(1);
    expect(nodes).toHaveLength(63);
    expect(new Set(nodes.map((node) => node.packageName))).toEqual(
      new Set(['com.google.android.youtube']),
    );
    expect(roots[0]?.bounds).toEqual([0, 0, 1344, 2992]);
    expect(isKeyboardWindow(roots[0] as (typeof roots)[number])).toBe(false);
  });

  it('finds the twelve clickable controls, labelled by content-desc', () => {
    const actionable = nodes.filter(isActionable);
    expect(actionable.map((node) => node.contentDesc || node.resourceId)).toEqual([
      'Cast. Disconnected',
      'Search',
      'More options',
      'Explore Menu',
      'Search YouTube',
      'Search with your voice',
      'com.google.android.youtube:id/bar_wrapper',
      'com.google.android.youtube:id/bar_layout',
      'Home',
      'Shorts',
      'Subscriptions',
      'You',
    ]);
    expect(actionable.every((node) => node.clickable && node.enabled)).toBe(true);
  });

  it('reads bounds, the selected tab and the tab labels held by child text views', () => {
    const search = nodes.find((node) => node.resourceId.endsWith(':id/menu_search'));
    expect(search).toMatchObject({
      className: 'android.widget.Button',
      bounds: [1080, 151, 1224, 295],
    });
    const tabs = nodes.filter((node) => node.bounds[1] === 2704 && node.clickable);
    expect(tabs.map((tab) => [tab.contentDesc, tab.selected])).toEqual([
      ['Home', true],
      ['Shorts', false],
      ['Subscriptions', false],
      ['You', false],
    ]);
    expect(tabs.map((tab) => tab.children.find((child) => child.text)?.text)).toEqual([
      'Home',
      'Shorts',
      'Subscriptions',
      'You',
    ]);
    const label = nodes.find((node) => node.text === 'Latest videos');
    expect(label && isActionable(label)).toBe(false);
  });
});

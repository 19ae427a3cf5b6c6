import { describe, expect, it } from 'vitest';
import { parseUiHierarchy } from '../ui-hierarchy.js';
import { chooseLocators } from './locator.js';

const node = (attributes: string, children = '') =>
  `<node index="0" text="" resource-id="" class="android.widget.Button" package="org.example" content-desc="" clickable="true" bounds="[0,0][10,10]" ${attributes}${children ? `>${children}</node>` : ' />'}`;

function page(...children: string[]) {
  return parseUiHierarchy(
    `<?xml version='1.0' ?><hierarchy rotation="0"><node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="org.example" content-desc="" bounds="[0,0][100,100]">${children.join('')}</node></hierarchy>`,
  );
}

describe('chooseLocators', () => {
  it('prefers a unique accessibility id, then resource-id, selector and XPath', () => {
    const roots = page(node('content-desc="Send" resource-id="org.example:id/send" text="Go"'));
    const target = roots[0]?.children[0];
    expect(target && chooseLocators(target, roots)).toEqual([
      { using: 'accessibility id', value: 'Send' },
      { using: 'id', value: 'org.example:id/send' },
      {
        using: '-android uiautomator',
        value: 'new UiSelector().className("android.widget.Button").text("Go")',
      },
      {
        using: 'xpath',
        value: '/hierarchy/android.widget.FrameLayout[1]/android.widget.Button[1]',
      },
    ]);
  });

  it('leaves out a locator that matches two nodes', () => {
    const roots = page(
      node('content-desc="More" resource-id="org.example:id/a" text="Open"'),
      node('content-desc="More" resource-id="org.example:id/b" text="Open"'),
    );
    const second = roots[0]?.children[1];
    expect(second && chooseLocators(second, roots)).toEqual([
      { using: 'id', value: 'org.example:id/b' },
      {
        using: 'xpath',
        value: '/hierarchy/android.widget.FrameLayout[1]/android.widget.Button[2]',
      },
    ]);
  });

  it('never uses the text of an editable field, and escapes quotes in a selector', () => {
    const roots = page(
      node('class="android.widget.EditText" text="draft"'),
      node('text="Say &quot;hi&quot;"'),
    );
    const [field, button] = roots[0]?.children ?? [];
    expect(field && chooseLocators(field, roots).map((locator) => locator.using)).toEqual([
      'xpath',
    ]);
    expect(button && chooseLocators(button, roots)[0]?.value).toBe(
      'new UiSelector().className("android.widget.Button").text("Say \\"hi\\"")',
    );
  });
});

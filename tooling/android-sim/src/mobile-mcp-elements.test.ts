import { describe, expect, it } from 'vitest';
import { mobileMcpElements, type PeerSourceNode } from './mobile-mcp-elements.js';

function node(fields: Partial<PeerSourceNode>): PeerSourceNode {
  return {
    className: 'android.widget.TextView',
    text: '',
    contentDesc: '',
    resourceId: '',
    checkable: false,
    focused: false,
    bounds: [0, 0, 100, 50],
    children: [],
    ...fields,
  };
}

describe('mobileMcpElements', () => {
  const title = node({ text: 'Wi-Fi', resourceId: 'android:id/title', bounds: [10, 20, 110, 70] });
  const toggle = node({ className: 'android.widget.Switch', checkable: true, focused: true });
  const icon = node({ className: 'android.widget.ImageView', contentDesc: 'Back' });
  const hidden = node({ text: 'off screen', bounds: [0, 0, 0, 50] });
  const wrapper = node({ className: 'android.widget.LinearLayout', children: [title, toggle] });
  const roots = [
    node({ className: 'android.widget.FrameLayout', children: [wrapper, icon, hidden] }),
  ];

  it('keeps nodes with text, content-desc, resource-id or checkable and a non-empty rect, children first', () => {
    const { nodes } = mobileMcpElements(roots, 'json');
    expect(nodes).toEqual([title, toggle, icon]);
  });

  it('prints the json list the peer returns', () => {
    const { text } = mobileMcpElements([wrapper], 'json');
    expect(text).toBe(
      'Found these elements on screen: [{"type":"android.widget.TextView","text":"Wi-Fi","label":"","identifier":"android:id/title","coordinates":{"x":10,"y":20,"width":100,"height":50}},{"type":"android.widget.Switch","text":"","label":"","coordinates":{"x":0,"y":0,"width":100,"height":50},"focused":true}]',
    );
  });

  it('prints the compact text list, one line per element after the header', () => {
    const lines = mobileMcpElements(roots, 'text').text.split('\n');
    expect(lines[0]).toMatch(/^One element per line: @ref Type text= label=/);
    expect(lines.slice(1)).toEqual([
      'TextView text="Wi-Fi" id="android:id/title" at=10,20 size=100x50',
      'Switch at=0,0 size=100x50 focused',
      'ImageView label="Back" at=0,0 size=100x50',
    ]);
  });
});

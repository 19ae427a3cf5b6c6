import { assignRefs, readUiHierarchy } from './dist/ui-hierarchy.js';

const cpu = (f) => {
  const s = process.cpuUsage();
  f();
  const d = process.cpuUsage(s);
  return ((d.user + d.system) / 1000).toFixed(1);
};
const node =
  '<node index="0" text="row" resource-id="" class="android.widget.TextView" package="com.example" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][100,100]" />';
const xml = `<hierarchy rotation="0">${node.repeat(Math.ceil((1024 * 1024) / node.length))}`;
for (let r = 0; r < 4; r++) {
  console.log(
    'a',
    cpu(() => readUiHierarchy(`<hierarchy rotation="0">${'<a '.repeat(100_000)}</hierarchy>`)),
    'real1M',
    cpu(() => readUiHierarchy(xml)),
    'nested',
    cpu(() =>
      readUiHierarchy(
        `<hierarchy rotation="0">${'<node text="x" clickable="true">'.repeat(10_000)}</hierarchy>`,
      ),
    ),
  );
}

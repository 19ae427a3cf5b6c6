// `toolsys mcp diff`: what changed in a server's quarantined tools since they were approved, as a
// unified diff of their pinned shapes (description, schemas and annotations, pretty-printed with
// sorted keys). The text is the remote server's: it is shown with invisible characters escaped.
import { escapeInvisible } from '@toolsys/core-tool-registry/text';
import type { PinnedTool, ServerPins } from './tool-pin-file.js';

/** The lines of a tool's pinned shape, as compared. */
function shapeLines(tool: PinnedTool | undefined): string[] {
  if (tool === undefined) return [];
  const { description, ...rest } = tool;
  const lines = JSON.stringify(sorted(rest), null, 2).split('\n');
  // The description on lines of its own: a changed sentence reads as one.
  const described = description === undefined ? [] : ['description:', ...description.split('\n')];
  return [...described, ...lines].map((line) => escapeInvisible(line));
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sorted((value as Record<string, unknown>)[key])]),
  );
}

/** The edit script of two line lists (longest common subsequence). */
function editScript(before: string[], after: string[]): Array<[' ' | '-' | '+', string]> {
  const rows = before.length;
  const columns = after.length;
  const table: number[][] = Array.from({ length: rows + 1 }, () => new Array(columns + 1).fill(0));
  for (let i = rows - 1; i >= 0; i -= 1) {
    for (let j = columns - 1; j >= 0; j -= 1) {
      const row = table[i] as number[];
      const below = table[i + 1] as number[];
      row[j] =
        before[i] === after[j]
          ? (below[j + 1] as number) + 1
          : Math.max(below[j] as number, row[j + 1] as number);
    }
  }
  const script: Array<[' ' | '-' | '+', string]> = [];
  let i = 0;
  let j = 0;
  while (i < rows || j < columns) {
    if (i < rows && j < columns && before[i] === after[j]) {
      script.push([' ', before[i] as string]);
      i += 1;
      j += 1;
    } else if (
      j < columns &&
      (i >= rows ||
        ((table[i] as number[])[j + 1] as number) >= ((table[i + 1] as number[])[j] as number))
    ) {
      script.push(['+', after[j] as string]);
      j += 1;
    } else {
      script.push(['-', before[i] as string]);
      i += 1;
    }
  }
  return script;
}

/** A unified diff of `before` and `after` with `context` lines around each change. */
export function unifiedDiff(
  before: string[],
  after: string[],
  labels: { before: string; after: string },
  context = 3,
): string {
  const script = editScript(before, after);
  const changed = script.map(([mark]) => mark !== ' ');
  const keep = script.map((_, index) =>
    changed.slice(Math.max(0, index - context), index + context + 1).some((isChange) => isChange),
  );
  const out = [`--- ${labels.before}`, `+++ ${labels.after}`];
  let oldLine = 1;
  let newLine = 1;
  let index = 0;
  while (index < script.length) {
    if (!keep[index]) {
      const [mark] = script[index] as [string, string];
      if (mark !== '+') oldLine += 1;
      if (mark !== '-') newLine += 1;
      index += 1;
      continue;
    }
    const hunk: string[] = [];
    const oldStart = oldLine;
    const newStart = newLine;
    while (index < script.length && keep[index]) {
      const [mark, text] = script[index] as [string, string];
      hunk.push(`${mark}${text}`);
      if (mark !== '+') oldLine += 1;
      if (mark !== '-') newLine += 1;
      index += 1;
    }
    const oldCount = oldLine - oldStart;
    const newCount = newLine - newStart;
    out.push(
      `@@ -${oldCount === 0 ? oldStart - 1 : oldStart},${oldCount} +${newCount === 0 ? newStart - 1 : newStart},${newCount} @@`,
      ...hunk,
    );
  }
  return out.join('\n');
}

/** The diff of every quarantined tool of a server (empty when none is quarantined). */
export function quarantineDiff(server: string, pins: ServerPins | undefined): string {
  const pending = Object.entries(pins?.pending ?? {});
  return pending
    .map(([name, entry]) => {
      const approved = pins?.approved[name];
      return unifiedDiff(shapeLines(approved?.tool), shapeLines(entry.tool), {
        before: approved ? `${server}/${name} (approved)` : '/dev/null (new tool)',
        after: `${server}/${name} (listed now)`,
      });
    })
    .join('\n\n');
}

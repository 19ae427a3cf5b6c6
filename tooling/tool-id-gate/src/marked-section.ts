/**
 * `text` with what lies between the `start` and `end` marker lines replaced by `content`;
 * undefined when a marker is missing or they are out of order.
 */
export function replaceMarkedSection(
  text: string,
  start: string,
  end: string,
  content: string,
): string | undefined {
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from === -1 || to === -1 || to < from) return undefined;
  return `${text.slice(0, from + start.length)}\n${content}\n${text.slice(to)}`;
}

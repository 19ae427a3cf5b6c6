/** Where {@link wrapText} puts the lines of a text. */
export interface WrapOptions {
  /** The column no line goes past (counting from the start of the line). */
  readonly columns: number;
  /** Spaces in front of every line after the first. */
  readonly indent: number;
  /** The column the first line starts at (the caller writes what is before it). Default `indent`. */
  readonly firstColumn?: number;
}

/**
 * Wraps `text` at spaces so that no line goes past `columns`: the first line starts at
 * `firstColumn`, the others after `indent` spaces. A word longer than a line stays whole.
 */
export function wrapText(text: string, options: WrapOptions): string {
  const firstColumn = options.firstColumn ?? options.indent;
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const room = options.columns - (lines.length === 0 ? firstColumn : options.indent);
    if (line && line.length + 1 + word.length > room) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines.join(`\n${' '.repeat(options.indent)}`);
}

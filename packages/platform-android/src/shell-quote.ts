/** Quotes a word for the device's `sh` (single quotes; a quote inside becomes '\''). */
export function quoteShell(word: string): string {
  if (/^[A-Za-z0-9_./:=@%+,-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", "'\\''")}'`;
}

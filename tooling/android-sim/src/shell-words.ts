/** One simple command of a command line, with its redirections removed. */
export interface SimpleCommand {
  /** The words after quote removal. */
  readonly argv: string[];
  /** How it joins the previous command: `;` (always), `&&` (on success), `||` (on failure). */
  readonly join: ';' | '&&' | '||';
  /** Where stdout goes: the caller (undefined), `/dev/null`, or a file path. */
  readonly stdoutTo?: string;
  /** Where stderr goes: the caller (undefined), `/dev/null`, or `&1` (merged into stdout). */
  readonly stderrTo?: string;
}

/**
 * Splits a command line the way the device's `sh` would for the forms adb clients send: single
 * and double quotes, backslash escapes, `;`, `&&`, `||`, and `>`/`2>`/`2>&1` redirections.
 * Throws a SyntaxError with the shell's wording on an unterminated quote.
 */
export function parseCommandLine(line: string): SimpleCommand[] {
  const commands: SimpleCommand[] = [];
  let words: string[] = [];
  let current = '';
  let inWord = false;
  let join: SimpleCommand['join'] = ';';
  let stdoutTo: string | undefined;
  let stderrTo: string | undefined;
  let redirect: 'out' | 'err' | undefined;

  const endWord = () => {
    if (!inWord) return;
    if (redirect === 'out') stdoutTo = current;
    else if (redirect === 'err') stderrTo = current;
    else words.push(current);
    redirect = undefined;
    current = '';
    inWord = false;
  };
  const endCommand = (next: SimpleCommand['join']) => {
    endWord();
    if (words.length > 0) {
      const command: { -readonly [K in keyof SimpleCommand]: SimpleCommand[K] } = {
        argv: words,
        join,
      };
      if (stdoutTo !== undefined) command.stdoutTo = stdoutTo;
      if (stderrTo !== undefined) command.stderrTo = stderrTo;
      commands.push(command);
    }
    words = [];
    stdoutTo = undefined;
    stderrTo = undefined;
    join = next;
  };

  for (let index = 0; index < line.length; index++) {
    const char = line[index] as string;
    const next = line[index + 1];
    if (char === "'") {
      const end = line.indexOf("'", index + 1);
      if (end < 0) throw new SyntaxError("/system/bin/sh: syntax error: unmatched '''");
      current += line.slice(index + 1, end);
      inWord = true;
      index = end;
    } else if (char === '"') {
      inWord = true;
      let end = index + 1;
      for (; end < line.length && line[end] !== '"'; end++) {
        if (
          line[end] === '\\' &&
          end + 1 < line.length &&
          '"\\$`'.includes(line[end + 1] as string)
        ) {
          end++;
        }
        current += line[end];
      }
      if (end >= line.length) throw new SyntaxError("/system/bin/sh: syntax error: unmatched '\"'");
      index = end;
    } else if (char === '\\') {
      if (next !== undefined) current += next;
      inWord = true;
      index++;
    } else if (char === ' ' || char === '\t' || char === '\n') {
      endWord();
    } else if (char === ';') {
      endCommand(';');
    } else if (char === '&' && next === '&') {
      endCommand('&&');
      index++;
    } else if (char === '|' && next === '|') {
      endCommand('||');
      index++;
    } else if (char === '>' && !inWord) {
      redirect = 'out';
      if (next === '>') index++;
      while (line[index + 1] === ' ') index++;
    } else if (char === '2' && next === '>' && !inWord) {
      if (line[index + 2] === '&' && line[index + 3] === '1') {
        stderrTo = '&1';
        index += 3;
      } else {
        redirect = 'err';
        index++;
        while (line[index + 1] === ' ') index++;
      }
    } else {
      current += char;
      inWord = true;
    }
  }
  endCommand(';');
  return commands;
}

/** Quotes a word for the device shell (single quotes; a quote inside becomes '\''). */
export function quoteShellWord(word: string): string {
  if (/^[A-Za-z0-9_./:=@%+,-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", "'\\''")}'`;
}

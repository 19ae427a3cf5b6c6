import { spawn } from 'node:child_process';
import { lstat, stat } from 'node:fs/promises';
import { basename, dirname, posix, relative, sep } from 'node:path';
import { ToolError, ToolErrorCode } from '@toolsys/core-tool-registry';
import type { RE2JS } from 're2js';
import type * as Tinyglobby from 'tinyglobby';
import { lazyModule } from './lazy-module.js';
import { readWorkspaceFile } from './workspace-fs.js';

const re2js = lazyModule<typeof import('re2js')>('re2js', import.meta.url);
const tinyglobby = lazyModule<typeof Tinyglobby>('tinyglobby', import.meta.url);

/** Which engine runs a content search. */
export type FileSearchBackend = 'ripgrep' | 'node';

/** Options for {@link searchFiles}. */
export interface FileSearchOptions {
  /** The workspace root (real path); result paths are relative to it. */
  root: string;
  /** The folder or file to search (real path inside the root). */
  target: string;
  /** Regular expression (RE2 syntax, as ripgrep) or literal text. */
  pattern: string;
  /** Whether `pattern` is literal text. */
  literal: boolean;
  /** Whether case is ignored. */
  ignoreCase: boolean;
  /** Only files whose name (or path, when it contains `/`) matches this glob. */
  include?: string;
  /** Whether dot files and dot folders are searched. `.git` and `node_modules` never are. */
  includeHidden: boolean;
  /** Matches returned; the total is still counted. */
  maxResults: number;
  /** Which engine to use. */
  backend: FileSearchBackend;
  /** The ripgrep executable. Default `rg`. */
  ripgrepPath?: string;
  /**
   * Runs ripgrep inside this sandbox (bubblewrap and its arguments, `--chdir` included): ripgrep
   * walks folders by path, so only a sandbox that shows nothing but the workspace keeps a folder
   * swapped for a link during the walk from leading outside.
   */
  sandbox?: { executable: string; arguments: readonly string[] };
  /** Cancels the search. */
  signal?: AbortSignal;
}

/** One matching line. */
export interface FileSearchMatch {
  /** Path relative to the workspace root, `/`-separated. */
  path: string;
  /** 1-based line number. */
  line: number;
  /** The line, without its terminator, cut to 300 characters. */
  text: string;
}

/** What {@link searchFiles} found. */
export interface FileSearchOutcome {
  /** The first `maxResults` matches, ordered by path then line. */
  matches: FileSearchMatch[];
  /** Matching lines in total (up to {@link MAX_COUNTED_MATCHES}). */
  totalMatches: number;
  /** Whether matches were left out. */
  truncated: boolean;
  /** The engine that ran. */
  backend: FileSearchBackend;
}

/** Matching lines counted before a search stops. */
export const MAX_COUNTED_MATCHES = 100_000;
const MAX_FILE_BYTES = 10 * 1024 * 1024;
const MAX_LINE_CHARS = 300;
const EXCLUDED_DIRECTORIES = ['node_modules', '.git'];

const ripgrepChecks = new Map<string, Promise<boolean>>();

/** Whether ripgrep can be started (checked once per executable, on first use). */
export function isRipgrepAvailable(ripgrepPath = 'rg'): Promise<boolean> {
  let check = ripgrepChecks.get(ripgrepPath);
  if (check === undefined) {
    check = new Promise<boolean>((resolve) => {
      const child = spawn(ripgrepPath, ['--version'], { stdio: 'ignore' });
      child.on('error', () => resolve(false));
      child.on('close', (code) => resolve(code === 0));
    });
    ripgrepChecks.set(ripgrepPath, check);
  }
  return check;
}

/** Compiles the pattern as ripgrep would read it; INVALID_ARGUMENT when it is not valid RE2. */
function compilePattern(pattern: string, literal: boolean, ignoreCase: boolean): RE2JS {
  try {
    return re2js().RE2JS.compile(
      literal ? re2js().RE2JS.quote(pattern) : pattern,
      ignoreCase ? re2js().RE2JS.CASE_INSENSITIVE : 0,
    );
  } catch (error) {
    throw new ToolError(
      ToolErrorCode.INVALID_ARGUMENT,
      `pattern: not a valid regular expression (${(error as Error).message})`,
      {
        field: 'pattern',
        hint: 'Fix the pattern (RE2 syntax: no lookaround or backreferences), or set literal to true.',
      },
    );
  }
}

function clip(text: string): string {
  const line = text.replace(/\r?\n$/, '').replace(/\r$/, '');
  return line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line;
}

function comparePaths(left: FileSearchMatch, right: FileSearchMatch): number {
  const a = left.path.split('/');
  const b = right.path.split('/');
  for (let index = 0; index < Math.min(a.length, b.length); index += 1) {
    const x = a[index] as string;
    const y = b[index] as string;
    if (x !== y) return x < y ? -1 : 1;
  }
  if (a.length !== b.length) return a.length - b.length;
  return left.line - right.line;
}

function finish(
  all: FileSearchMatch[],
  total: number,
  options: FileSearchOptions,
): FileSearchOutcome {
  all.sort(comparePaths);
  const matches = all.slice(0, options.maxResults);
  return {
    matches,
    totalMatches: total,
    truncated: total > matches.length,
    backend: options.backend,
  };
}

/**
 * Searches file contents line by line, with ripgrep or with a Node fallback that gives the same
 * results: the same pattern language (RE2), the same files (no symlinks followed, no dot files
 * unless asked, never `.git` or `node_modules`, files over 10 MiB and binary files skipped) and
 * the same ordering (by path, then line).
 */
export async function searchFiles(options: FileSearchOptions): Promise<FileSearchOutcome> {
  const regex = compilePattern(options.pattern, options.literal, options.ignoreCase);
  const targetStats = await stat(options.target);
  const folder = targetStats.isDirectory() ? options.target : dirname(options.target);
  const only = targetStats.isDirectory() ? undefined : basename(options.target);
  const prefix = relative(options.root, folder).split(sep).join('/');
  const toWorkspace = (path: string) => posix.normalize(prefix === '' ? path : `${prefix}/${path}`);
  return options.backend === 'ripgrep'
    ? searchWithRipgrep(options, folder, only, toWorkspace)
    : searchWithNode(options, regex, folder, only, toWorkspace);
}

async function searchWithRipgrep(
  options: FileSearchOptions,
  folder: string,
  only: string | undefined,
  toWorkspace: (path: string) => string,
): Promise<FileSearchOutcome> {
  const args = ['--json', '--no-config', '--no-ignore', '--max-filesize', '10M'];
  if (options.includeHidden) args.push('--hidden');
  if (options.literal) args.push('--fixed-strings');
  if (options.ignoreCase) args.push('--ignore-case');
  else args.push('--case-sensitive');
  if (options.include !== undefined && only === undefined) args.push('--glob', options.include);
  for (const directory of EXCLUDED_DIRECTORIES) args.push('--glob', `!${directory}`);
  args.push('--regexp', options.pattern, '--', only ?? '.');

  const matches: FileSearchMatch[] = [];
  const perFile = new Map<string, FileSearchMatch[]>();
  let total = 0;
  let stderr = '';
  let buffered = '';
  const ripgrep = options.ripgrepPath ?? 'rg';
  const child =
    options.sandbox === undefined
      ? spawn(ripgrep, args, { cwd: folder, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(options.sandbox.executable, [...options.sandbox.arguments, ripgrep, ...args], {
          stdio: ['ignore', 'pipe', 'pipe'],
        });
  const onAbort = () => child.kill('SIGKILL');
  options.signal?.addEventListener('abort', onAbort, { once: true });

  const handleLine = (line: string) => {
    if (line === '') return;
    let message: {
      type?: string;
      data?: {
        path?: { text?: string; bytes?: string };
        lines?: { text?: string; bytes?: string };
        line_number?: number;
        binary_offset?: number | null;
      };
    };
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    const data = message.data;
    const path = data?.path?.text ?? Buffer.from(data?.path?.bytes ?? '', 'base64').toString();
    if (message.type === 'match' && data !== undefined) {
      const text = data.lines?.text ?? Buffer.from(data.lines?.bytes ?? '', 'base64').toString();
      const list = perFile.get(path) ?? [];
      list.push({
        path: toWorkspace(path.replace(/^\.\//, '')),
        line: data.line_number ?? 0,
        text: clip(text),
      });
      perFile.set(path, list);
    } else if (message.type === 'end') {
      const list = perFile.get(path) ?? [];
      perFile.delete(path);
      // A file that turned out to be binary is skipped whole, as the Node search does.
      if (data?.binary_offset == null && total < MAX_COUNTED_MATCHES) {
        total += list.length;
        matches.push(...list);
        if (total >= MAX_COUNTED_MATCHES) child.kill('SIGKILL');
      }
    }
  };

  const exitCode = await new Promise<number | null>((resolve, reject) => {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      let newline = buffered.indexOf('\n');
      while (newline >= 0) {
        handleLine(buffered.slice(0, newline));
        buffered = buffered.slice(newline + 1);
        newline = buffered.indexOf('\n');
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 4_000) stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve(code));
  }).finally(() => options.signal?.removeEventListener('abort', onAbort));
  handleLine(buffered);
  options.signal?.throwIfAborted();
  if (exitCode === 2 && matches.length === 0 && /regex parse error|error parsing/i.test(stderr)) {
    throw new ToolError(ToolErrorCode.INVALID_ARGUMENT, 'pattern: ripgrep cannot parse it', {
      field: 'pattern',
      hint: 'Simplify the pattern or set literal to true.',
    });
  }
  return finish(matches, Math.min(total, MAX_COUNTED_MATCHES), options);
}

async function searchWithNode(
  options: FileSearchOptions,
  regex: RE2JS,
  folder: string,
  only: string | undefined,
  toWorkspace: (path: string) => string,
): Promise<FileSearchOutcome> {
  let files: string[];
  if (only !== undefined) {
    files = [only];
  } else {
    const include = options.include ?? '**/*';
    files = await tinyglobby().glob(include.includes('/') ? include : `**/${include}`, {
      cwd: folder,
      dot: options.includeHidden,
      onlyFiles: true,
      followSymbolicLinks: false,
      expandDirectories: false,
      ignore: EXCLUDED_DIRECTORIES.flatMap((directory) => [
        `**/${directory}/**`,
        `**/${directory}`,
      ]),
    });
  }
  const matches: FileSearchMatch[] = [];
  let total = 0;
  for (const file of files) {
    options.signal?.throwIfAborted();
    if (total >= MAX_COUNTED_MATCHES) break;
    const absolute = `${folder}${sep}${file}`;
    const stats = await lstat(absolute).catch(() => undefined);
    if (stats === undefined || !stats.isFile() || stats.size > MAX_FILE_BYTES) continue;
    // The glob walks by path; the content is read through held folder descriptors only, so a
    // folder swapped for a link meanwhile is skipped, never read (see workspace-fs.ts).
    const content = await readWorkspaceFile(options.root, relative(options.root, absolute));
    if (content === undefined || content.includes(0)) continue;
    const lines = content.toString('utf8').split('\n');
    if (lines.at(-1) === '') lines.pop();
    const path = toWorkspace(file.split(sep).join('/'));
    for (let index = 0; index < lines.length; index += 1) {
      const line = lines[index] as string;
      if (!regex.test(line)) continue;
      total += 1;
      matches.push({ path, line: index + 1, text: clip(line) });
    }
  }
  return finish(matches, Math.min(total, MAX_COUNTED_MATCHES), options);
}

import { z } from 'zod';

// Argument fields the tools share, and the checks behind them: a value that could name another
// path or ref than it spells is refused before anything is sent.

/** A GitHub login: letters, digits and single hyphens inside, at most 39 characters. */
export const LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
/**
 * A GitHub repository name: letters, digits, `-`, `_` and `.`, at most 100 characters, never
 * `.` or `..` (in a URL they would name another path than a repository).
 */
export const REPO_NAME = /^(?!\.{1,2}$)[A-Za-z0-9._-]{1,100}$/;
/** `owner/name` with both parts as above. */
export const FULL_REPO_NAME =
  /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/(?!\.{1,2}$)[A-Za-z0-9._-]{1,100}$/;
/** Whether a text holds a C0 control or DEL: never in a path or a ref GitHub serves. */
function hasControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}
/** A backslash, or a percent-encoded `/`, `\` or `.`. */
const ENCODED_SEPARATOR = /\\|%(?:2f|5c|2e)/i;

/** Whether a repository path names exactly the path it spells (no dot parts, nothing encoded). */
export function isRepositoryPath(path: string): boolean {
  if (ENCODED_SEPARATOR.test(path) || hasControlCharacter(path)) return false;
  const parts = normalisePath(path).split('/');
  return parts.every((part) => part !== '' && part !== '.' && part !== '..');
}

/** Git's rules for ref names (`git check-ref-format`), which also hold for any commit sha. */
export function isGitRefName(ref: string): boolean {
  if (hasControlCharacter(ref) || /[ ~^:?*[\\]/.test(ref)) return false;
  if (ref === '@' || ref.includes('..') || ref.includes('@{') || ref.includes('//')) return false;
  if (ref.startsWith('/') || ref.startsWith('-') || ref.endsWith('/') || ref.endsWith('.')) {
    return false;
  }
  return ref.split('/').every((part) => !part.startsWith('.') && !part.endsWith('.lock'));
}

/** The `owner` argument. */
export const ownerField = z
  .string()
  .regex(LOGIN, 'expected a GitHub user or organisation login')
  .describe('Owner of the repository: a user or organisation login, e.g. "octocat".');
/** The `repo` argument (name without owner). */
export const repoField = z
  .string()
  .regex(REPO_NAME, 'expected a repository name without the owner (not "." or "..")')
  .describe('Repository name without the owner, e.g. "hello-world".');
/** A `path` argument: a file path inside a repository. */
export const pathField = z
  .string()
  .min(1)
  .max(1_000)
  .refine(isRepositoryPath, {
    message:
      'expected a path inside the repository: parts separated by single "/", no "." or ".." parts, no backslash, control character or percent-encoded "/", "\\" or "."',
  })
  .describe('File path from the repository root, e.g. "src/index.ts".');
/** A `ref` argument: branch, tag or commit sha. */
export const refField = z
  .string()
  .min(1)
  .max(255)
  .refine(isGitRefName, {
    message:
      'expected a branch, tag or commit sha as git allows it (no "..", "@{", spaces, control characters or ~^:?*[\\)',
  })
  .describe('Branch, tag or commit sha. Default: the repository default branch.');
/** The `cursor` argument of a listing. */
export const cursorField = z
  .string()
  .min(1)
  .max(200)
  .describe(
    'The nextCursor of the previous page; omit for the first page. Keep the other arguments unchanged.',
  );

/** A repository path without leading or trailing slashes. */
export function normalisePath(path: string): string {
  return path.replace(/^\/+/, '').replace(/\/+$/, '');
}

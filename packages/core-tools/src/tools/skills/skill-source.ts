// Staging a skill source for installation: a folder, a tarball or an npm package.
import { execFile } from 'node:child_process';
import { cp, lstat, mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { isToolError, ToolError, ToolErrorCode } from '@toolsys/core-tool-registry';
import { lazyModule } from '@toolsys/platform';
import type { ReadEntry } from 'tar';
import { parseSkillManifest, type SkillManifest } from './skill-manifest.js';
import type { SkillStore } from './skill-store.js';

const tar = lazyModule<typeof import('tar')>('tar', import.meta.url);

const MAX_EXTRACTED_BYTES = 50 * 1024 * 1024;
const NPM_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*(?:@[A-Za-z0-9.^~<>=|* -]+)?$/;
const NPM_TIMEOUT_MS = 120_000;

type SourceKind = 'folder' | 'tarball' | 'npm';

/** Copies or unpacks a skill source (folder, tarball or npm package) into `staging`. */
export async function stageSource(
  store: SkillStore,
  source: string,
  staging: string,
  signal: AbortSignal,
): Promise<{ root: string; kind: SourceKind }> {
  const trimmed = source.trim();
  if (trimmed.startsWith('npm:')) {
    return { root: await stageNpm(store, trimmed.slice(4), staging, signal), kind: 'npm' };
  }
  const path = resolve(store.options.workspaceRoot, trimmed);
  const info = await stat(path).catch(() => undefined);
  if (info?.isDirectory()) {
    // Find SKILL.md first, so a wrong folder (even "/") is refused before anything is copied.
    const skillRoot = await findSkillRoot(path);
    const copy = join(staging, 'folder');
    let total = 0;
    await cp(skillRoot, copy, {
      recursive: true,
      filter: async (from) => {
        if (basename(from) === '.git') return false;
        const entry = await lstat(from);
        if (entry.isSymbolicLink()) return false;
        total += entry.isFile() ? entry.size : 0;
        if (total > MAX_EXTRACTED_BYTES) {
          throw new ToolError(
            ToolErrorCode.INVALID_ARGUMENT,
            `source: the skill folder holds more than ${MAX_EXTRACTED_BYTES} bytes.`,
            { field: 'source' },
          );
        }
        return true;
      },
    });
    return { root: copy, kind: 'folder' };
  }
  if (info?.isFile() && /\.(tgz|tar\.gz|tar)$/i.test(trimmed)) {
    return { root: await extractTarball(path, join(staging, 'tarball')), kind: 'tarball' };
  }
  if (!info && NPM_NAME.test(trimmed) && !/\.(tgz|tar\.gz|tar)$/i.test(trimmed)) {
    return { root: await stageNpm(store, trimmed, staging, signal), kind: 'npm' };
  }
  throw new ToolError(
    ToolErrorCode.NOT_FOUND,
    `source: "${source}" is not a skill folder, a .tgz file or an npm package name.`,
    {
      field: 'source',
      hint: 'Give a folder containing SKILL.md, a .tgz of one, or an npm package name (find skills with skill_search).',
    },
  );
}

async function extractTarball(file: string, into: string): Promise<string> {
  await mkdir(into, { recursive: true });
  let total = 0;
  let tooLarge = false;
  try {
    await tar().extract({
      file,
      cwd: into,
      strict: true,
      filter: (_path: string, entry: ReadEntry | { size: number }) => {
        const type = (entry as ReadEntry).type;
        // Links could point outside the skill folder; skills need plain files only.
        if (type !== 'File' && type !== 'OldFile' && type !== 'Directory') return false;
        total += entry.size ?? 0;
        if (total > MAX_EXTRACTED_BYTES) tooLarge = true;
        return !tooLarge;
      },
    });
  } catch (error) {
    throw new ToolError(
      ToolErrorCode.INVALID_ARGUMENT,
      `source: the archive cannot be extracted (${(error as Error).message}).`,
      { field: 'source', hint: 'Give a valid .tgz of a skill folder.' },
    );
  }
  if (tooLarge) {
    throw new ToolError(
      ToolErrorCode.INVALID_ARGUMENT,
      `source: the archive holds more than ${MAX_EXTRACTED_BYTES} bytes.`,
      { field: 'source' },
    );
  }
  return into;
}

async function stageNpm(
  store: SkillStore,
  spec: string,
  staging: string,
  signal: AbortSignal,
): Promise<string> {
  if (!NPM_NAME.test(spec)) {
    throw new ToolError(
      ToolErrorCode.INVALID_ARGUMENT,
      `source: "${spec}" is not a valid npm package name.`,
      { field: 'source', hint: 'Use a name such as "my-skill" or "@scope/my-skill@1.2.0".' },
    );
  }
  if (store.options.allowNpm === false) {
    throw new ToolError(
      ToolErrorCode.UNSUPPORTED,
      'Installing skills from npm is disabled in this deployment.',
      { hint: 'Install from a local folder or .tgz instead.' },
    );
  }
  const packDirectory = join(staging, 'npm-pack');
  await mkdir(packDirectory, { recursive: true });
  const output = await new Promise<string>((resolvePromise, reject) => {
    execFile(
      store.options.npmCommand ?? 'npm',
      ['pack', spec, '--pack-destination', packDirectory, '--json', '--ignore-scripts'],
      { timeout: NPM_TIMEOUT_MS, signal, maxBuffer: 4 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) {
          const reason = String(stderr)
            .split('\n')
            .find((line) => /ERR|error/i.test(line));
          reject(
            new ToolError(
              ToolErrorCode.EXECUTION_FAILED,
              `npm pack ${spec} failed${reason ? `: ${reason.trim()}` : '.'}`,
              { retryable: false, hint: 'Check the package name with skill_search.' },
            ),
          );
          return;
        }
        resolvePromise(String(stdout));
      },
    );
  });
  let filename: string | undefined;
  try {
    filename = (JSON.parse(output) as Array<{ filename?: string }>)[0]?.filename;
  } catch {
    filename = undefined;
  }
  const tarballs = filename
    ? [filename]
    : (await readdir(packDirectory)).filter((name) => name.endsWith('.tgz'));
  const tarball = tarballs[0];
  if (!tarball) {
    throw new ToolError(ToolErrorCode.EXECUTION_FAILED, `npm pack ${spec} produced no archive.`, {
      retryable: false,
    });
  }
  return extractTarball(join(packDirectory, tarball.replace(/^.*[\\/]/, '')), join(staging, 'npm'));
}

/** The folder holding SKILL.md: the root itself or its single top-level folder (npm's `package/`). */
export async function findSkillRoot(root: string): Promise<string> {
  if (await isFile(join(root, 'SKILL.md'))) return root;
  const entries = await readdir(root, { withFileTypes: true });
  const folders = entries.filter((entry) => entry.isDirectory());
  if (folders.length === 1 && folders[0]) {
    const inner = join(root, folders[0].name);
    if (await isFile(join(inner, 'SKILL.md'))) return inner;
  }
  throw new ToolError(
    ToolErrorCode.INVALID_ARGUMENT,
    'source: no SKILL.md at the top of the skill (or of its single top-level folder).',
    { field: 'source', hint: 'A skill is a folder with a SKILL.md file; check the source.' },
  );
}

/** Whether `path` is a regular file. */
export async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isFile(),
    () => false,
  );
}

/** Reads and parses `SKILL.md` in `root`. */
export async function readManifest(root: string): Promise<SkillManifest> {
  const text = await readFile(join(root, 'SKILL.md'), 'utf8');
  try {
    return parseSkillManifest(text);
  } catch (error) {
    if (!isToolError(error)) throw error;
    throw new ToolError(
      ToolErrorCode.INVALID_ARGUMENT,
      `source: its SKILL.md is invalid: ${error.message}`,
      { field: 'source', hint: error.options.hint ?? 'Fix SKILL.md and retry.' },
    );
  }
}

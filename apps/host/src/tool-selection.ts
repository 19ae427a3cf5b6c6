import { type AnyToolDefinition, resolveMetadata } from '@toolsys/core-tool-registry';
import type { DeploymentConfig } from './config.js';

/** Where a tool comes from, for `package:<key>` patterns. */
export interface ToolOrigin {
  readonly packageKey: string;
  /** Categories switched off in the package's `groups`. */
  readonly groups: Readonly<Record<string, boolean>>;
}

function globToRegExp(glob: string): RegExp {
  const source = glob
    .split('')
    .map((char) => {
      if (char === '*') return '.*';
      if (char === '?') return '.';
      return char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  return new RegExp(`^${source}$`);
}

/** A `tools.include` / `tools.exclude` pattern: an id glob, `category:<name>` or `package:<key>`. */
export function matchesToolPattern(
  pattern: string,
  tool: AnyToolDefinition,
  origin: Pick<ToolOrigin, 'packageKey'>,
): boolean {
  if (pattern.startsWith('category:')) {
    return resolveMetadata(tool.metadata).category === pattern.slice('category:'.length);
  }
  if (pattern.startsWith('package:')) return origin.packageKey === pattern.slice('package:'.length);
  return globToRegExp(pattern).test(tool.id);
}

/**
 * Whether a deployment registers a tool: not in a category switched off in its package's
 * `groups`, not excluded by `tools.exclude` / `tools.disabled`, and matching `tools.include` when
 * that is set.
 */
export function isToolSelected(
  tool: AnyToolDefinition,
  origin: ToolOrigin,
  tools: DeploymentConfig['tools'],
): boolean {
  return exclusionOf(tool, origin, tools) === undefined;
}

/** The setting that leaves a tool out of the deployment, named as in the config; undefined if none. */
export function exclusionOf(
  tool: AnyToolDefinition,
  origin: ToolOrigin,
  tools: DeploymentConfig['tools'],
): string | undefined {
  const category = resolveMetadata(tool.metadata).category;
  if (origin.groups[category] === false) {
    return `packages.${origin.packageKey}.groups.${category} is false`;
  }
  if (tools?.disabled?.includes(tool.id)) return 'tools.disabled names it';
  const excludedBy = tools?.exclude?.find((pattern) => matchesToolPattern(pattern, tool, origin));
  if (excludedBy !== undefined) return `tools.exclude matches it ("${excludedBy}")`;
  if (tools?.include && !tools.include.some((p) => matchesToolPattern(p, tool, origin))) {
    return 'tools.include does not match it';
  }
  return undefined;
}

/**
 * The `tools.include` / `tools.exclude` patterns that match no tool this deployment knows (the
 * tools it serves and those that are off), each with the setting it stands in, e.g.
 * `tools.exclude "brwser_*"`: a pattern that matches nothing is most likely misspelled.
 */
export function unmatchedPatterns(
  tools: DeploymentConfig['tools'],
  known: {
    /** Ids of every tool, served or off. */
    readonly ids: readonly string[];
    /** The category names that exist. */
    readonly categories: ReadonlySet<string>;
    /** Keys of every package, on or off. */
    readonly packageKeys: ReadonlySet<string>;
  },
): string[] {
  const matches = (pattern: string): boolean => {
    if (pattern.startsWith('category:')) {
      return known.categories.has(pattern.slice('category:'.length));
    }
    if (pattern.startsWith('package:')) {
      return known.packageKeys.has(pattern.slice('package:'.length));
    }
    const glob = globToRegExp(pattern);
    return known.ids.some((id) => glob.test(id));
  };
  const unmatched: string[] = [];
  for (const setting of ['include', 'exclude'] as const) {
    for (const pattern of tools?.[setting] ?? []) {
      if (!matches(pattern)) unmatched.push(`tools.${setting} "${pattern}"`);
    }
  }
  return unmatched;
}

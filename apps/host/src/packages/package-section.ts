import type { AnyToolPackageEntry } from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { describeIssues } from '../config-issues.js';

/** The switches every package section accepts besides the package's own options. */
export const packageSwitchesSchema = z.object({
  enabled: z
    .boolean()
    .optional()
    .describe(
      'Force the package on (true, even when its backend was not detected) or off (false).',
    ),
  groups: z
    .record(z.string(), z.boolean())
    .optional()
    .describe('Tool categories (shell, network, file, …) of this package switched off with false.'),
});

/** A package section split into the host's switches and the package's own validated options. */
export interface PackageSection {
  readonly enabled: boolean | undefined;
  readonly groups: Readonly<Record<string, boolean>>;
  readonly config: unknown;
}

/**
 * Validates `packages.<key>` against the entry's schema plus the common switches. Returns the
 * problems as lines (`  packages.core.shell.allowComands: unknown key … (did you mean …)`), or the
 * parsed section.
 */
export function parsePackageSection(
  entry: AnyToolPackageEntry,
  raw: unknown,
): { section: PackageSection; problems?: undefined } | { problems: string[] } {
  const prefix = ['packages', entry.key];
  if (raw !== undefined && (typeof raw !== 'object' || raw === null || Array.isArray(raw))) {
    return { problems: [`  ${prefix.join('.')}: expected an object of options`] };
  }
  const { enabled, groups, ...options } = (raw ?? {}) as Record<string, unknown>;
  const switches = packageSwitchesSchema.safeParse({ enabled, groups });
  const parsed = entry.configSchema.safeParse(options);
  const problems = [
    ...(switches.success
      ? []
      : describeIssues(switches.error.issues, packageSwitchesSchema, prefix)),
    ...(parsed.success ? [] : describeIssues(parsed.error.issues, entry.configSchema, prefix)),
  ];
  if (problems.length > 0 || !switches.success || !parsed.success) return { problems };
  return {
    section: {
      enabled: switches.data.enabled,
      groups: switches.data.groups ?? {},
      config: parsed.data,
    },
  };
}

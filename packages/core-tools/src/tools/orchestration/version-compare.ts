// `version_compare`: Semantic Versioning precedence and range checks.
import {
  type AnyToolDefinition,
  defineTool,
  failureResult,
  RunPolicies,
  successResult,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { lazyModule } from '@toolsys/platform';
import { z } from 'zod';

const semver = lazyModule<typeof import('semver')>('semver', import.meta.url);

/** The `version_compare` tool. */
export function createVersionCompareTool(): AnyToolDefinition {
  return defineTool({
    id: 'version_compare',
    description: 'Compares two SemVer versions, optionally against a range.',
    inputSchema: ToolSchema.object({
      a: z.string().min(1).max(256).describe('First version.'),
      b: z.string().min(1).max(256).describe('Second version.'),
      range: z.string().max(256).optional().describe('Range to check.'),
      loose: z.boolean().default(false).describe('Accept "1.2".'),
    }),
    metadata: { category: 'data', risk: 'LOW', annotations: ToolHints.readOnly },
    runPolicy: RunPolicies.quickRead,
    execute({ a, b, range, loose }) {
      const parse = (text: string, field: string) => {
        const parsed = loose
          ? (semver().coerce(text, { includePrerelease: true }) ?? null)
          : semver().parse(text);
        if (!parsed) {
          return failureResult(
            ToolErrorCode.INVALID_ARGUMENT,
            `${field}: "${text}" is not a SemVer version (MAJOR.MINOR.PATCH[-pre][+build])`,
            { field, hint: 'Pass a full version such as "1.2.3", or set loose: true for "1.2".' },
          );
        }
        return parsed;
      };
      const left = parse(a, 'a');
      if (!(left instanceof semver().SemVer)) return left;
      const right = parse(b, 'b');
      if (!(right instanceof semver().SemVer)) return right;
      const comparison = semver().compare(left, right);
      const difference = semver().diff(left, right);
      const symbol = comparison < 0 ? '<' : comparison > 0 ? '>' : '=';
      const lines = [
        `${left.version} ${symbol} ${right.version}${difference ? ` (${difference} differs)` : ''}`,
      ];
      const data: Record<string, unknown> = {
        a: left.version,
        b: right.version,
        comparison,
        difference,
      };
      if (range !== undefined) {
        const valid = semver().validRange(range, { loose });
        if (valid === null) {
          return failureResult(
            ToolErrorCode.INVALID_ARGUMENT,
            `range: "${range}" is not a SemVer range`,
            {
              field: 'range',
              hint: 'Use a range such as "^1.2.0", "~1.2", ">=1.0.0 <2.0.0" or "1.x".',
            },
          );
        }
        const satisfiesA = semver().satisfies(left, valid, { includePrerelease: true });
        const satisfiesB = semver().satisfies(right, valid, { includePrerelease: true });
        lines.push(`${left.version} ${satisfiesA ? 'satisfies' : 'does not satisfy'} ${range}`);
        lines.push(`${right.version} ${satisfiesB ? 'satisfies' : 'does not satisfy'} ${range}`);
        data.range = { range, a: satisfiesA, b: satisfiesB };
      }
      return successResult(lines.join('\n'), { data });
    },
  });
}

import { ToolSuggester } from '@toolsys/core-tool-registry';
import { z } from 'zod';

const suggester = new ToolSuggester();

/** Steps through wrappers (optional, nullable, default, pipe) to the schema that holds keys. */
function unwrap(schema: z.ZodType): z.ZodType {
  let current: z.ZodType = schema;
  for (let depth = 0; depth < 10; depth += 1) {
    if (
      current instanceof z.ZodOptional ||
      current instanceof z.ZodNullable ||
      current instanceof z.ZodDefault
    ) {
      current = current.unwrap() as z.ZodType;
    } else if (current instanceof z.ZodPipe) {
      current = current.in as z.ZodType;
    } else {
      return current;
    }
  }
  return current;
}

/** The keys an object schema accepts at `path`, or [] where the path is no object schema. */
export function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current = unwrap(schema);
  for (const step of path) {
    if (current instanceof z.ZodObject) {
      const child = (current.shape as Record<string, z.ZodType>)[String(step)];
      if (!child) return [];
      current = unwrap(child);
    } else if (current instanceof z.ZodRecord) {
      current = unwrap(current.valueType as z.ZodType);
    } else if (current instanceof z.ZodArray) {
      current = unwrap(current.element as z.ZodType);
    } else {
      return [];
    }
  }
  return current instanceof z.ZodObject ? Object.keys(current.shape) : [];
}

/** "did you mean" for an unknown key among the known ones, or an empty string. */
export function closestKeyHint(key: string, known: readonly string[]): string {
  const [closest] = suggester.suggest(key, known, 1);
  if (closest) return ` (did you mean "${closest}"?)`;
  return known.length > 0 ? ` (valid keys: ${known.join(', ')})` : '';
}

/**
 * One line per problem, `  <prefix>.<path>: <message>`, and for an unknown key the closest valid
 * one, so `workspaceroot` reads `Unrecognized key "workspaceroot" (did you mean "workspaceRoot"?)`.
 */
export function describeIssues(
  issues: readonly z.core.$ZodIssue[],
  schema: z.ZodType,
  prefix: readonly PropertyKey[] = [],
): string[] {
  const lines: string[] = [];
  for (const issue of issues) {
    const at = [...prefix, ...issue.path].map(String).join('.') || '(root)';
    if (issue.code === 'unrecognized_keys') {
      const known = knownKeysAt(schema, issue.path);
      for (const key of issue.keys) {
        const where = [...prefix, ...issue.path, key].map(String).join('.');
        lines.push(`  ${where}: unknown key "${key}"${closestKeyHint(key, known)}`);
      }
      continue;
    }
    lines.push(`  ${at}: ${issue.message}`);
  }
  return lines;
}

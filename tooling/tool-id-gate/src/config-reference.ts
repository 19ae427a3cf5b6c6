import type { AnyToolPackageEntry } from '@toolsys/core-tool-registry';
import { deploymentConfigSchema, packageSwitchesSchema } from '@toolsys/host';
import { z } from 'zod';
import { replaceMarkedSection } from './marked-section.js';

/** The markers the host README carries around its generated config reference. */
export const CONFIG_START = '<!-- config:start -->';
export const CONFIG_END = '<!-- config:end -->';

interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  propertyNames?: JsonSchema;
  description?: string;
  default?: unknown;
  format?: string;
}

/** A short type for a JSON Schema: `string`, `"a" \| "b"`, `string[]`, `{ [key]: boolean }`. */
function typeOf(schema: JsonSchema): string {
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(' \\| ');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return union.map(typeOf).join(' \\| ');
  if (schema.type === 'array') return `${schema.items ? typeOf(schema.items) : 'unknown'}[]`;
  if (schema.type === 'object') {
    if (schema.properties) return 'object';
    if (typeof schema.additionalProperties === 'object') {
      return `{ [key]: ${typeOf(schema.additionalProperties)} }`;
    }
    return 'object';
  }
  if (Array.isArray(schema.type)) return schema.type.join(' \\| ');
  if (schema.type === 'string' && schema.format) return `string (${schema.format})`;
  return schema.type ?? 'unknown';
}

/** One row per key, nested objects flattened to dotted paths. */
function rows(schema: JsonSchema, prefix: string): string[] {
  const lines: string[] = [];
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    if (key === '$schema') continue;
    const path = prefix ? `${prefix}.${key}` : key;
    const description = (property.description ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ');
    const defaults =
      property.default !== undefined ? ` Default ${JSON.stringify(property.default)}.` : '';
    lines.push(`| \`${path}\` | ${typeOf(property)} | ${description}${defaults} |`);
    if (property.properties) lines.push(...rows(property, path));
    const items = property.anyOf?.find((option) => option.properties);
    if (items) lines.push(...rows(items, path));
  }
  return lines;
}

function table(schema: z.ZodType, prefix: string): string {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return ['| key | type | meaning |', '|---|---|---|', ...rows(json, prefix)].join('\n');
}

/**
 * The config reference of `toolsys.config.json`, generated from the zod schemas the host
 * validates with, so it cannot drift: the top-level keys, the switches every package section
 * takes, and each built-in package's own section.
 */
export function renderConfigReference(packages: readonly AnyToolPackageEntry[]): string {
  const sections = [
    '### Top level',
    '',
    table(deploymentConfigSchema, ''),
    '',
    '### Every package section (`packages.<key>`)',
    '',
    table(packageSwitchesSchema, 'packages.<key>'),
  ];
  for (const entry of packages) {
    sections.push(
      '',
      `### \`packages.${entry.key}\` (${entry.name})`,
      '',
      `${entry.description.charAt(0).toUpperCase()}${entry.description.slice(1)}.`,
      '',
      table(entry.configSchema, `packages.${entry.key}`),
    );
  }
  return sections.join('\n');
}

/** Replaces the text between the config markers; undefined when they are missing. */
export function replaceConfigReference(readme: string, reference: string): string | undefined {
  return replaceMarkedSection(readme, CONFIG_START, CONFIG_END, reference);
}

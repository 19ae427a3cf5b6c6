import {
  type AnyToolDefinition,
  invalidArgument,
  successResult,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { compileLinearRegex, lazyModule } from '@toolsys/platform';
import type { FilterFunction, JSONPathEnvironment, JSONValue } from 'json-p3';
import type { RE2JS } from 're2js';
import { z } from 'zod';
import { assertJsonTextDepth, JSON_DOCUMENT_ARGUMENT_LIMITS } from './json-depth.js';
import { DEFAULT_MATCH_TIME_LIMIT_MS, runWithTimeLimit } from './run-with-time-limit.js';
import { defineStructuredTool, queryLimitField } from './shared.js';

const jsonP3 = lazyModule<typeof import('json-p3')>('json-p3', import.meta.url);

const MAX_JSON_LENGTH = 5_000_000;
const MAX_RENDERED_LENGTH = 20_000;
const MAX_RECURSION_DEPTH = 100;

const jsonPathSchema = ToolSchema.object({
  json: z
    .unknown()
    .refine((value) => value !== undefined, 'required (a JSON document)')
    .describe('JSON text or value.'),
  path: z.string().min(1).max(2_000).describe('E.g. "$..author".'),
  limit: queryLimitField('matches'),
});

/** RFC 9535 `match`/`search`, run on RE2 so a filter pattern can never hang the query. */
class LinearRegexFunction implements FilterFunction {
  readonly argTypes = [
    jsonP3().FunctionExpressionType.ValueType,
    jsonP3().FunctionExpressionType.ValueType,
  ];
  readonly returnType = jsonP3().FunctionExpressionType.LogicalType;
  readonly #whole: boolean;
  readonly #cache = new Map<string, RE2JS | null>();

  constructor(whole: boolean) {
    this.#whole = whole;
  }

  call(value: unknown, pattern: unknown): boolean {
    if (typeof value !== 'string' || typeof pattern !== 'string') return false;
    let regex = this.#cache.get(pattern);
    if (regex === undefined) {
      try {
        regex = compileLinearRegex(pattern, {});
      } catch {
        regex = null; // RFC 9535: an invalid pattern makes the function return false.
      }
      if (this.#cache.size < 64) this.#cache.set(pattern, regex);
    }
    if (regex === null) return false;
    return this.#whole ? regex.testExact(value) : regex.test(value);
  }
}

function createEnvironment(): JSONPathEnvironment {
  const environment = new (jsonP3().JSONPathEnvironment)({
    maxRecursionDepth: MAX_RECURSION_DEPTH,
  });
  environment.functionRegister.set('match', new LinearRegexFunction(true));
  environment.functionRegister.set('search', new LinearRegexFunction(false));
  return environment;
}

function createJsonPathTool(timeLimitMs: number): AnyToolDefinition {
  let environment: JSONPathEnvironment | undefined;
  return defineStructuredTool({
    id: 'json_path',
    description: 'Queries JSON with RFC 9535 JSONPath.',
    inputSchema: jsonPathSchema,
    outputSchema: ToolSchema.object({
      count: z.number(),
      truncated: z.boolean(),
      matches: z.array(z.object({ path: z.string(), value: z.unknown() })),
    }),
    tags: ['json', 'query'],
    argumentLimits: JSON_DOCUMENT_ARGUMENT_LIMITS,
    execute(args) {
      const document = readDocument(args.json);
      environment ??= createEnvironment();
      let nodes: ReturnType<JSONPathEnvironment['query']>['nodes'];
      try {
        const query = environment.query.bind(environment, args.path, document);
        nodes = runWithTimeLimit(
          () => query().nodes,
          timeLimitMs,
          'json_path',
          'Use a simpler query (fewer .. descendant segments and filters, simpler match/search patterns), or query a smaller document, then retry.',
        );
      } catch (error) {
        if (error instanceof jsonP3().JSONPathRecursionLimitError) {
          throw invalidArgument(
            'json',
            `the document is nested deeper than ${MAX_RECURSION_DEPTH} levels for a descendant (..) query`,
            'Query a sub-document with explicit child selectors instead of .., and retry.',
          );
        }
        if (error instanceof jsonP3().JSONPathError) {
          throw invalidArgument(
            'path',
            `invalid JSONPath: ${error.message}`,
            'Write an RFC 9535 query starting with $, e.g. "$.items[*].name" or "$..id", and retry.',
          );
        }
        throw error;
      }
      const truncated = nodes.length > args.limit;
      const matches = nodes
        .slice(0, args.limit)
        .map((node) => ({ path: node.getPath(), value: node.value }));
      return successResult(renderMatches(matches, nodes.length, truncated), {
        data: { count: nodes.length, truncated, matches },
      });
    },
  });
}

function readDocument(json: unknown): JSONValue {
  if (typeof json !== 'string') return json as JSONValue;
  if (json.length > MAX_JSON_LENGTH) {
    throw invalidArgument('json', `the document is longer than ${MAX_JSON_LENGTH} characters`);
  }
  assertJsonTextDepth(json, 'json');
  try {
    return JSON.parse(json) as JSONValue;
  } catch (error) {
    throw invalidArgument(
      'json',
      `not valid JSON text: ${(error as Error).message}`,
      'Pass valid JSON text (double-quoted keys, no trailing commas) or a JSON object, and retry.',
    );
  }
}

function renderMatches(
  matches: Array<{ path: string; value: unknown }>,
  total: number,
  truncated: boolean,
): string {
  if (total === 0) return 'No matches.';
  const header = `${total} match${total === 1 ? '' : 'es'}${truncated ? ` (showing ${matches.length})` : ''}:`;
  const lines = [header];
  let length = header.length;
  for (const { path, value } of matches) {
    const line = `${path} = ${JSON.stringify(value)}`;
    if (length + line.length > MAX_RENDERED_LENGTH) {
      lines.push('… (output shortened; the full values are in the structured data)');
      break;
    }
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join('\n');
}

/** Options for {@link createJsonPathTools}. */
export interface JsonPathToolsOptions {
  /** Hard limit on the evaluation time of one query, in ms; the call ends with TIMEOUT. Default 5000. */
  matchTimeLimitMs?: number;
}

/** `json_path`. */
export function createJsonPathTools(options: JsonPathToolsOptions = {}): AnyToolDefinition[] {
  return [createJsonPathTool(options.matchTimeLimitMs ?? DEFAULT_MATCH_TIME_LIMIT_MS)];
}

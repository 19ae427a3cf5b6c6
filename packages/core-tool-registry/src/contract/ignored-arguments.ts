/**
 * Argument names a tool does not declare. They are not an error (a refusal would start a retry
 * loop over a harmless extra), but a misspelled optional field would otherwise change the answer
 * silently (`where` for `filter` returns every row), so the result names what was ignored.
 */
import { ToolSuggester } from '../registry/tool-suggester.js';
import type { ToolResult } from './tool-result.js';

/** The most ignored names a note lists one by one. */
const MAX_NAMED = 5;
/** The most declared fields a note lists. */
const MAX_FIELDS = 12;
/** A longer ignored name is shortened in the note. */
const MAX_NAME_CHARS = 64;

const suggester = new ToolSuggester();

/** One argument the tool ignored, with the declared field it most likely meant. */
export interface IgnoredArgument {
  readonly name: string;
  readonly closest?: string;
}

/** The argument names of `args` that are not among `fields`, in the caller's order. */
export function findIgnoredArguments(
  fields: ReadonlySet<string>,
  args: Readonly<Record<string, unknown>>,
): IgnoredArgument[] {
  let ignored: IgnoredArgument[] | undefined;
  for (const name in args) {
    if (fields.has(name) || !Object.hasOwn(args, name)) continue;
    ignored ??= [];
    // Only the names a note spells out are matched against the fields.
    const closest =
      ignored.length < MAX_NAMED && name.length <= MAX_NAME_CHARS
        ? suggester.suggest(name, fields, 1)[0]
        : undefined;
    ignored.push(closest === undefined ? { name } : { name, closest });
  }
  return ignored ?? [];
}

/** The one line a result gains: what was ignored, what it may have meant, what the tool takes. */
export function ignoredArgumentsNote(
  toolId: string,
  ignored: readonly IgnoredArgument[],
  fields: ReadonlySet<string>,
): string {
  const named = ignored.slice(0, MAX_NAMED).map(({ name, closest }) => {
    const quoted = JSON.stringify(
      name.length > MAX_NAME_CHARS ? `${name.slice(0, MAX_NAME_CHARS)}…` : name,
    );
    return closest === undefined ? quoted : `${quoted} (did you mean "${closest}"?)`;
  });
  const more = ignored.length > MAX_NAMED ? ` and ${ignored.length - MAX_NAMED} more` : '';
  const list = [...fields];
  const shown = list.slice(0, MAX_FIELDS).join(', ');
  const takes =
    list.length === 0
      ? `${toolId} takes no arguments`
      : `${toolId} takes: ${shown}${list.length > MAX_FIELDS ? ', …' : ''}`;
  const noun = ignored.length === 1 ? 'argument' : 'arguments';
  return `Note: ignored ${noun} ${named.join(', ')}${more}; ${takes}.`;
}

/**
 * `result` with the note on what was ignored: after the text of a success, after the message of a
 * failure (and listed in its details). Structured data is left as the tool returned it.
 */
export function withIgnoredArguments(
  result: ToolResult,
  toolId: string,
  ignored: readonly IgnoredArgument[],
  fields: ReadonlySet<string>,
): ToolResult {
  if (ignored.length === 0) return result;
  const note = ignoredArgumentsNote(toolId, ignored, fields);
  if (result.ok) {
    return { ...result, content: result.content === '' ? note : `${result.content}\n\n${note}` };
  }
  const { error } = result;
  return {
    ok: false,
    error: {
      ...error,
      message: `${error.message}\n${note}`,
      details: {
        ...error.details,
        ignoredArguments: ignored
          .slice(0, MAX_NAMED)
          .map(({ name }) => name.slice(0, MAX_NAME_CHARS)),
      },
    },
  };
}

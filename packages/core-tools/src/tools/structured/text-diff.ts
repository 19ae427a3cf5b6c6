import {
  type AnyToolDefinition,
  failureResult,
  successResult,
  ToolErrorCode,
  type ToolFailure,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { lazyModule } from '@toolsys/platform';
import type { ChangeObject } from 'diff';
import { z } from 'zod';
import { defineStructuredTool } from './shared.js';

const diff = lazyModule<typeof import('diff')>('diff', import.meta.url);

const MAX_TEXT_LENGTH = 2_000_000;
/** jsdiff is O(N·D); past this budget it gives up instead of blocking the agent loop. */
const DEFAULT_DIFF_TIME_LIMIT_MS = 5_000;

const DIFF_MODES = ['unified', 'lines', 'words', 'chars'] as const;

const textDiffSchema = ToolSchema.object({
  before: z.string().max(MAX_TEXT_LENGTH).describe('Original.'),
  after: z.string().max(MAX_TEXT_LENGTH).describe('Changed.'),
  mode: z.enum(DIFF_MODES).default('unified').describe('Format.'),
  context: z.number().int().min(0).max(1_000).default(3).describe('Context lines (unified).'),
  ignoreWhitespace: z.boolean().default(false).describe('Ignore whitespace.'),
  ignoreCase: z.boolean().default(false).describe('Ignore case.'),
  beforeLabel: z.string().max(200).default('before').describe('Name of the original.'),
  afterLabel: z.string().max(200).default('after').describe('Name of the changed text.'),
});

const changeSchema = z.object({
  type: z.enum(['added', 'removed', 'unchanged']),
  value: z.string(),
  count: z.number(),
});

type Change = z.infer<typeof changeSchema>;

function createTextDiffTool(timeLimitMs: number): AnyToolDefinition {
  return defineStructuredTool({
    id: 'text_diff',
    description: 'Diffs two texts: a unified patch, or changes by line, word or character.',
    inputSchema: textDiffSchema,
    outputSchema: ToolSchema.object({
      identical: z.boolean(),
      added: z.number(),
      removed: z.number(),
      patch: z.string().optional(),
      changes: z.array(changeSchema).optional(),
    }),
    tags: ['text', 'diff'],
    execute(args) {
      const { before, after, mode } = args;
      const granular = computeChanges(args, timeLimitMs);
      if (granular === undefined) return tooDifferent(timeLimitMs);
      const changes: Change[] = granular.map((change) => ({
        type: change.added ? 'added' : change.removed ? 'removed' : 'unchanged',
        value: change.value,
        count: change.count,
      }));
      const added = sumCount(changes, 'added');
      const removed = sumCount(changes, 'removed');
      const identical = added === 0 && removed === 0;
      if (mode === 'unified') {
        const patch = identical
          ? ''
          : diff().createTwoFilesPatch(
              args.beforeLabel,
              args.afterLabel,
              before,
              after,
              undefined,
              undefined,
              {
                context: args.context,
                ignoreWhitespace: args.ignoreWhitespace,
                timeout: timeLimitMs,
              },
            );
        if (patch === undefined) return tooDifferent(timeLimitMs);
        const content = identical ? 'No differences.' : patch;
        return successResult(content, { data: { identical, added, removed, patch } });
      }
      const content = identical ? 'No differences.' : renderInline(changes, added, removed, mode);
      return successResult(content, { data: { identical, added, removed, changes } });
    },
  });
}

function tooDifferent(timeLimitMs: number): ToolFailure {
  return failureResult(
    ToolErrorCode.EXECUTION_FAILED,
    `the texts are too different to diff within ${timeLimitMs / 1000} s`,
    {
      retryable: false,
      hint: 'Diff smaller pieces (for example one section at a time) or use mode "lines".',
    },
  );
}

type TextDiffArgs = typeof textDiffSchema extends ToolSchema<infer T> ? T : never;

function computeChanges(args: TextDiffArgs, timeout: number): ChangeObject<string>[] | undefined {
  const { before, after, mode, ignoreWhitespace, ignoreCase } = args;
  switch (mode) {
    case 'unified':
    case 'lines':
      return diff().diffLines(before, after, { ignoreWhitespace, timeout });
    case 'words':
      return diff().diffWords(before, after, { ignoreCase, timeout });
    case 'chars':
      return diff().diffChars(before, after, { ignoreCase, timeout });
    default: {
      const unreachable: never = mode;
      throw new Error(`unknown mode ${String(unreachable)}`);
    }
  }
}

function sumCount(changes: Change[], type: Change['type']): number {
  return changes.reduce((total, change) => total + (change.type === type ? change.count : 0), 0);
}

function renderInline(changes: Change[], added: number, removed: number, mode: string): string {
  const unit = mode === 'lines' ? 'line' : mode === 'words' ? 'token' : 'char';
  const body = changes
    .map((change) =>
      change.type === 'added'
        ? `{+${change.value}+}`
        : change.type === 'removed'
          ? `[-${change.value}-]`
          : change.value,
    )
    .join('');
  return `+${added} −${removed} ${unit}(s)\n${body}`;
}

/** Options for {@link createTextDiffTools}. */
export interface TextDiffToolsOptions {
  /** Time after which a diff gives up with EXECUTION_FAILED, in ms. Default 5000. */
  diffTimeLimitMs?: number;
}

/** `text_diff`. */
export function createTextDiffTools(options: TextDiffToolsOptions = {}): AnyToolDefinition[] {
  return [createTextDiffTool(options.diffTimeLimitMs ?? DEFAULT_DIFF_TIME_LIMIT_MS)];
}

import { SYSTEM_CLOCK, type ToolClock } from '../contract/clock.js';
import type {
  CallPrincipal,
  ConfirmFunction,
  InputRequest,
  InputResponse,
  ToolEvent,
} from '../contract/tool.js';
import { describeType } from '../contract/tool-arguments.js';
import { ToolErrorCode } from '../contract/tool-error.js';
import type { ToolExecutor } from '../contract/tool-executor.js';
import {
  batchBudgetFailure,
  batchCancelledFailure,
  invalidBatchFailure,
} from '../contract/tool-failures.js';
import {
  failureResult,
  renderResult,
  successResult,
  type ToolFailure,
  type ToolResult,
} from '../contract/tool-result.js';
import { ToolSuggester } from '../registry/tool-suggester.js';

/** The exact text every step that did not run returns (Anthropic computer-use contract). */
export const NOT_EXECUTED_TEXT = 'Not executed: an earlier action in this turn failed.';

/** The most steps one batch may hold. */
export const MAX_BATCH_STEPS = 16;
/** Default wall-clock budget of a whole batch, in ms. */
export const DEFAULT_BATCH_BUDGET_MS = 120_000;
/** The largest budget a batch may ask for, in ms. */
export const MAX_BATCH_BUDGET_MS = 600_000;
/** A step's output is head-truncated to this many bytes when referenced by a later step. */
export const MAX_REFERENCE_BYTES = 4_096;

/** One step of a batch after parsing. */
export interface BatchStep {
  /** The tool id. */
  readonly tool: string;
  /** The arguments; strings may hold `{n}` references to earlier steps' outputs. */
  readonly args: Record<string, unknown>;
}

/** What happened to one step. */
export interface BatchStepOutcome {
  /** 0-based position of the step. */
  readonly index: number;
  /** The tool id of the step. */
  readonly tool: string;
  /** Whether it ran and succeeded, failed, or did not run. */
  readonly status: 'ok' | 'failed' | 'not_executed';
  /** The rendered text of the step's result, or {@link NOT_EXECUTED_TEXT}. */
  readonly text: string;
  /** The failure code, for failed steps. */
  readonly code?: string;
}

/** Per-run options of {@link ToolBatchRunner.run}. */
export interface BatchRunOptions {
  /** Wall-clock budget of the whole batch, in ms. Default 120 000, at most 600 000. */
  budgetMs?: number;
  /** Cancels the batch (and the running step). */
  signal?: AbortSignal;
  /** The agent session the steps run in. */
  sessionId?: string;
  /** Who runs the batch: each step runs as this principal. */
  principal?: CallPrincipal;
  /** Receives the steps' progress and streamed output. */
  onEvent?: (event: ToolEvent) => void;
  /** Answers the steps' confirmations. */
  confirm?: ConfirmFunction;
  /** Answers the steps' input requests (see `ToolContext.requestInput`). */
  requestInput?: (request: InputRequest) => Promise<InputResponse>;
  /** The field path steps are reported under. Default `steps`. */
  fieldPrefix?: string;
}

/** Options for {@link ToolBatchRunner}. */
export interface ToolBatchRunnerOptions {
  /** Executor every step runs through (so every step passes the same gates). */
  executor: ToolExecutor;
  /** Clock for the budget. Default: the system clock. */
  clock?: ToolClock;
  /** Tool ids steps may not call, besides the tools that declare `orchestrates`. */
  forbiddenTools?: Iterable<string>;
}

/** `{n}` is a reference; `{{n}}` is the literal text `{n}` (e.g. a regex quantifier). */
const REFERENCE = /\{\{(\d+)\}\}|\{(\d+)\}/g;
const WHOLE_REFERENCE = /^\{(\d+)\}$/;

/**
 * Runs tool calls strictly in order and stops at the first failure; every later step returns
 * exactly {@link NOT_EXECUTED_TEXT}. Steps refer to earlier outputs with `{n}` (0-based), as the
 * whole value of an argument or inside a template (`{{n}}` is a literal `{n}`); outputs are
 * head-truncated to 4 KB. Forward or
 * out-of-range references, unknown tools and malformed steps are refused before any step runs.
 */
export class ToolBatchRunner {
  readonly #executor: ToolExecutor;
  readonly #clock: ToolClock;
  readonly #suggester = new ToolSuggester();
  readonly #forbidden: Set<string>;

  constructor(options: ToolBatchRunnerOptions) {
    this.#executor = options.executor;
    this.#clock = options.clock ?? SYSTEM_CLOCK;
    this.#forbidden = new Set(options.forbiddenTools ?? []);
  }

  /**
   * Validates raw steps (an array or a JSON string) without running anything; steps may name the
   * tools `principal` (default: `local`) sees.
   */
  parse(
    rawSteps: unknown,
    fieldPrefix = 'steps',
    principal?: CallPrincipal,
  ): { ok: true; steps: BatchStep[] } | { ok: false; failure: ToolFailure } {
    let value = rawSteps;
    if (typeof value === 'string') {
      try {
        value = JSON.parse(value);
      } catch (error) {
        return invalid(fieldPrefix, `not valid JSON (${(error as Error).message})`);
      }
    }
    if (!Array.isArray(value)) {
      return invalid(fieldPrefix, `expected an array of steps, received ${describeType(value)}`);
    }
    if (value.length === 0) return invalid(fieldPrefix, 'at least one step is required');
    if (value.length > MAX_BATCH_STEPS) {
      return invalid(
        fieldPrefix,
        `${value.length} steps is more than the limit of ${MAX_BATCH_STEPS}; split the batch`,
      );
    }
    const steps: BatchStep[] = [];
    for (let index = 0; index < value.length; index += 1) {
      const field = `${fieldPrefix}.${index}`;
      const step = value[index] as unknown;
      if (typeof step !== 'object' || step === null || Array.isArray(step)) {
        return invalid(
          field,
          `expected {"tool": "...", "args": {...}}, received ${describeType(step)}`,
        );
      }
      const { tool, args } = step as { tool?: unknown; args?: unknown };
      if (typeof tool !== 'string' || tool === '') {
        return invalid(`${field}.tool`, `required (expected a tool id string)`);
      }
      // A step that could run a batch would nest batches without bound.
      const registered = this.#executor.registry.get(tool, principal);
      if (this.#forbidden.has(tool) || registered?.metadata.orchestrates) {
        return invalid(`${field}.tool`, `${tool} cannot run inside a batch; call it on its own`);
      }
      if (registered === undefined) {
        const suggestions = this.#suggester.suggest(tool, this.#executor.registry.ids(principal));
        return invalid(
          `${field}.tool`,
          `unknown tool "${tool}"${suggestions.length > 0 ? `; did you mean ${suggestions.join(', ')}?` : ''}`,
        );
      }
      let parsedArgs: unknown = args ?? {};
      if (typeof parsedArgs === 'string') {
        try {
          parsedArgs = parsedArgs.trim() === '' ? {} : JSON.parse(parsedArgs);
        } catch (error) {
          return invalid(`${field}.args`, `not valid JSON (${(error as Error).message})`);
        }
      }
      if (typeof parsedArgs !== 'object' || parsedArgs === null || Array.isArray(parsedArgs)) {
        return invalid(`${field}.args`, `expected an object, received ${describeType(parsedArgs)}`);
      }
      const bad = findBadReference(parsedArgs, index, `${field}.args`);
      if (bad) return invalid(bad.field, bad.problem);
      steps.push({ tool, args: parsedArgs as Record<string, unknown> });
    }
    return { ok: true, steps };
  }

  /** Parses and runs a batch. Never throws. */
  async run(rawSteps: unknown, options: BatchRunOptions = {}): Promise<ToolResult> {
    try {
      const fieldPrefix = options.fieldPrefix ?? 'steps';
      const budgetMs = options.budgetMs ?? DEFAULT_BATCH_BUDGET_MS;
      if (!(budgetMs > 0 && budgetMs <= MAX_BATCH_BUDGET_MS)) {
        return invalid(
          'budgetMs',
          `must be between 1 and ${MAX_BATCH_BUDGET_MS} ms, received ${budgetMs}`,
        ).failure;
      }
      const parsed = this.parse(rawSteps, fieldPrefix, options.principal);
      if (!parsed.ok) return parsed.failure;
      return await this.#runSteps(parsed.steps, budgetMs, options);
    } catch (thrown) {
      return failureResult(
        ToolErrorCode.EXECUTION_FAILED,
        `The batch failed unexpectedly: ${thrown instanceof Error ? thrown.message : String(thrown)}`,
      );
    }
  }

  async #runSteps(
    steps: readonly BatchStep[],
    budgetMs: number,
    options: BatchRunOptions,
  ): Promise<ToolResult> {
    const controller = new AbortController();
    const callerSignal = options.signal;
    const onCallerAbort = () => controller.abort(callerSignal?.reason);
    callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
    if (callerSignal?.aborted) controller.abort(callerSignal.reason);
    let budgetExpired = false;
    let onBudget: (() => void) | undefined;
    const budget = new Promise<'budget'>((resolve) => {
      onBudget = () => resolve('budget');
    });
    const timer = this.#clock.setTimeout(() => {
      budgetExpired = true;
      onBudget?.();
      controller.abort();
    }, budgetMs);
    const outputs: string[] = [];
    const outcomes: BatchStepOutcome[] = [];
    let failed: { index: number; tool: string; failure: ToolFailure } | undefined;
    try {
      for (let index = 0; index < steps.length; index += 1) {
        const step = steps[index] as BatchStep;
        if (failed) {
          outcomes.push({
            index,
            tool: step.tool,
            status: 'not_executed',
            text: NOT_EXECUTED_TEXT,
          });
          continue;
        }
        let result: ToolResult;
        if (budgetExpired) {
          result = batchBudgetFailure(budgetMs, index);
        } else if (controller.signal.aborted) {
          result = batchCancelledFailure(index);
        } else {
          const args = resolveReferences(step.args, outputs) as Record<string, unknown>;
          const running = this.#executor.execute(step.tool, args, {
            signal: controller.signal,
            ...(options.sessionId !== undefined ? { sessionId: options.sessionId } : {}),
            ...(options.principal ? { principal: options.principal } : {}),
            ...(options.onEvent ? { onEvent: options.onEvent } : {}),
            ...(options.confirm ? { confirm: options.confirm } : {}),
            ...(options.requestInput ? { requestInput: options.requestInput } : {}),
          });
          const raced = await Promise.race([running, budget]);
          result = raced === 'budget' ? batchBudgetFailure(budgetMs, index) : raced;
          if (!result.ok && budgetExpired) result = batchBudgetFailure(budgetMs, index);
        }
        if (result.ok) {
          outputs.push(truncateHead(result.content, MAX_REFERENCE_BYTES));
          outcomes.push({ index, tool: step.tool, status: 'ok', text: result.content });
        } else {
          failed = { index, tool: step.tool, failure: result };
          outcomes.push({
            index,
            tool: step.tool,
            status: 'failed',
            text: renderResult(result),
            code: result.error.code,
          });
        }
      }
    } finally {
      this.#clock.clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onCallerAbort);
    }
    const report = renderBatchReport(outcomes);
    if (!failed) return successResult(report, { data: { steps: outcomes } });
    const ran = failed.index;
    const error = failed.failure.error;
    const field = error.field !== undefined ? `steps.${ran}.args.${error.field}` : undefined;
    const already =
      ran === 0
        ? 'No step ran before it.'
        : ran === 1
          ? 'Step 0 already ran; do not repeat it.'
          : `Steps 0-${ran - 1} already ran; do not repeat them.`;
    return failureResult(
      error.code,
      `Step ${ran} (${failed.tool}) failed${field ? ` at ${field}` : ''}; the batch stopped there.\n\n${report}`,
      {
        retryable: error.retryable,
        ...(field !== undefined ? { field } : {}),
        ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
        hint: `${already} Fix step ${ran}, then send it and the later steps again. For step ${ran}: ${error.hint}`,
        details: { steps: outcomes, failedStep: failed.index },
      },
    );
  }
}

/** Renders step outcomes as the text the model reads. */
export function renderBatchReport(outcomes: readonly BatchStepOutcome[]): string {
  return outcomes
    .map((outcome) => {
      const status =
        outcome.status === 'ok' ? 'ok' : outcome.status === 'failed' ? 'failed' : 'not executed';
      return `[${outcome.index}] ${outcome.tool}: ${status}\n${outcome.text}`;
    })
    .join('\n\n');
}

function invalid(field: string, problem: string): { ok: false; failure: ToolFailure } {
  return { ok: false, failure: invalidBatchFailure(field, problem) };
}

/** Finds the first `{n}` reference that is forward or out of range, with its field path. */
function findBadReference(
  value: unknown,
  stepIndex: number,
  field: string,
): { field: string; problem: string } | undefined {
  if (typeof value === 'string') {
    for (const match of value.matchAll(REFERENCE)) {
      if (match[2] === undefined) continue;
      const target = Number(match[2]);
      if (target >= stepIndex) {
        return {
          field,
          problem:
            stepIndex === 0
              ? `reference {${target}} points to a step that has not run; step 0 cannot refer to any step`
              : `reference {${target}} points to a step that has not run; step ${stepIndex} may refer to {0}..{${stepIndex - 1}}`,
        };
      }
    }
    return undefined;
  }
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      const bad = findBadReference(value[index], stepIndex, `${field}.${index}`);
      if (bad) return bad;
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      const bad = findBadReference(inner, stepIndex, `${field}.${key}`);
      if (bad) return bad;
    }
  }
  return undefined;
}

/** Replaces `{n}` references with earlier outputs (whole value or interpolated). */
export function resolveReferences(value: unknown, outputs: readonly string[]): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE_REFERENCE.exec(value);
    if (whole) return outputs[Number(whole[1])] ?? value;
    if (!value.includes('{')) return value;
    return value.replace(
      REFERENCE,
      (text, escaped: string | undefined, index: string | undefined) =>
        escaped !== undefined ? `{${escaped}}` : (outputs[Number(index)] ?? text),
    );
  }
  if (Array.isArray(value)) return value.map((inner) => resolveReferences(inner, outputs));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) out[key] = resolveReferences(inner, outputs);
    return out;
  }
  return value;
}

/** Keeps the first `maxBytes` bytes of UTF-8 text, never splitting a character. */
export function truncateHead(text: string, maxBytes: number): string {
  if (text.length * 3 <= maxBytes) return text;
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  // Step back over UTF-8 continuation bytes so the cut falls on a character boundary.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return bytes.subarray(0, end).toString('utf8');
}

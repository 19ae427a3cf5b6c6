import type { InputRequest } from './tool.js';

/** The sixteen tool categories; catalogs group tools by them, in this order. */
export const TOOL_CATEGORIES = [
  'shell',
  'file',
  'network',
  'memory',
  'app',
  'system',
  'ui',
  'media',
  'utility',
  'data',
  'skill',
  'mcp',
  'orchestration',
  'browser',
  'github',
  'terminal',
] as const;

/** One of the sixteen {@link TOOL_CATEGORIES}. */
export type ToolCategory = (typeof TOOL_CATEGORIES)[number];

/** Risk levels, lowest first. */
export const TOOL_RISKS = ['LOW', 'MEDIUM', 'HIGH'] as const;

/** How much harm a call can do: LOW runs freely, MEDIUM and HIGH go through the risk gate. */
export type ToolRisk = (typeof TOOL_RISKS)[number];

/** Whether a tool may run as a task (MCP Tasks), in increasing need: the default is `forbidden`. */
export const TOOL_TASK_SUPPORT = ['forbidden', 'optional', 'required'] as const;

/**
 * Whether a call of the tool may run as a task that outlives its request (MCP Tasks, the
 * `execution.taskSupport` of a listed tool): `forbidden` (the default) runs every call as a plain
 * request; `optional` lets a client that supports tasks ask for one (calls that may take minutes:
 * installs, downloads, long commands); `required` refuses a plain call.
 */
export type ToolTaskSupport = (typeof TOOL_TASK_SUPPORT)[number];

/** MCP tool hints plus `sensitiveAction`. */
export interface ToolAnnotations {
  /** The tool does not change its environment. */
  readonly readOnlyHint: boolean;
  /** The tool may destroy or overwrite data (meaningful when not read-only). */
  readonly destructiveHint: boolean;
  /** Calling again with the same arguments has no further effect. */
  readonly idempotentHint: boolean;
  /** The tool reaches entities outside the deployment (the web, a device, a remote API). */
  readonly openWorldHint: boolean;
  /** The action touches something a user would want to approve (money, messages, installs). */
  readonly sensitiveAction: boolean;
}

/** Everything a tool says about itself besides its schema and its function. */
export interface ToolMetadata {
  readonly category: ToolCategory;
  readonly risk: ToolRisk;
  readonly tags: readonly string[];
  readonly annotations: ToolAnnotations;
  /** Set when the tool asks the user per action itself; see {@link ToolMetadataInput.gatesItself}. */
  readonly gatesItself?: true;
  /** Set when the tool runs or defines other calls; see {@link ToolMetadataInput.orchestrates}. */
  readonly orchestrates?: true;
  /** The tools one "allow for the session" answer covers; see {@link ToolMetadataInput.grantGroup}. */
  readonly grantGroup?: ToolGrantGroup;
  /** Set when the tool may run as a task; see {@link ToolMetadataInput.taskSupport}. Absent: `forbidden`. */
  readonly taskSupport?: 'optional' | 'required';
  /** What a task of the tool asks before it starts; see {@link ToolMetadataInput.questionsBeforeTask}. */
  readonly questionsBeforeTask?: readonly KeyedInputRequest[];
}

/** An input request with the key the tool asks it by (see `ToolContext.requestInput`). */
export type KeyedInputRequest = InputRequest & { readonly key: string };

/**
 * Tools that one "allow for the session" answer covers together (the browser's navigate, click
 * and type): the user is asked once per session and principal for the whole group.
 */
export interface ToolGrantGroup {
  /** The group's id, the same in every tool of the group (`browser`). */
  readonly id: string;
  /** What the grant covers, shown in the question (`opening pages, clicking and typing in the browser`). */
  readonly covers: string;
}

/**
 * What a tool declares about itself. Risk and hints are required: the kernel never guesses them
 * from an id. Start the hints from a preset in {@link ToolHints} and override what differs.
 */
export interface ToolMetadataInput {
  category: ToolCategory;
  risk: ToolRisk;
  tags?: readonly string[];
  annotations: ToolAnnotations;
  /**
   * The tool asks the user per action itself (per command line, per input to a session outside
   * the sandbox): the risk gate does not ask for the tool as a whole, so that no "allow for the
   * session" answer covers later actions. A `deny` policy for its risk still refuses it.
   */
  gatesItself?: boolean;
  /** The tool runs or defines other tool calls (a batch, a shortcut): a batch may not call it. */
  orchestrates?: boolean;
  /**
   * Tools that one "allow for the session" answer covers together. It never applies to a call
   * whose risk is HIGH, nor to a tool that `gatesItself`: those are asked per tool (or per
   * action) as before. "Always" answers stay per tool. Default: none (the grant covers this tool).
   */
  grantGroup?: ToolGrantGroup;
  /**
   * Whether a call may run as a task that outlives its request (see {@link ToolTaskSupport}):
   * declare `optional` for a tool whose calls can take minutes. Default `forbidden`.
   */
  taskSupport?: ToolTaskSupport;
  /**
   * Questions a call needs answered before its long work starts (which release to install,
   * which account to use), asked of the client before the call becomes a task: in the request
   * over MCP 2026-07-28 (input-required rounds, then the task), before the task is created over
   * 2025-11-25 when the client can answer. The tool asks each with `context.requestInput` under
   * the same `key` as before and gets the answer given; a question left unanswered is asked
   * while the task runs, as any other. Only for a tool that may run as a task.
   */
  questionsBeforeTask?: readonly KeyedInputRequest[];
}

/**
 * Named starting points for a tool's hints; spread one and override what differs, e.g.
 * `{ ...ToolHints.readOnly, openWorldHint: true }` for a tool that reads a web page.
 */
export const ToolHints = {
  /** Reads and changes nothing: calling it again is harmless. */
  readOnly: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
    sensitiveAction: false,
  },
  /** Changes state without destroying data (creates, appends, starts). */
  mutating: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
    sensitiveAction: false,
  },
  /** May overwrite or delete data. */
  destructive: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: false,
    sensitiveAction: false,
  },
} as const satisfies Record<string, ToolAnnotations>;

/**
 * The risk of a tool whose author declared hints but no risk (a remote MCP server's tool, a plugin):
 * read-only and closed-world is LOW, destructive is HIGH, anything else (including no hints at all)
 * is MEDIUM, so an undeclared tool is asked for under the default policy, never let through.
 */
export function riskFromHints(hints: Partial<ToolAnnotations> | undefined): ToolRisk {
  if (hints?.destructiveHint === true) return 'HIGH';
  if (hints?.readOnlyHint === true && hints.openWorldHint !== true) return 'LOW';
  return 'MEDIUM';
}

/**
 * Hints for a tool that declared some (or none): what is missing takes the cautious value
 * (not read-only, destructive unless declared otherwise, not idempotent, open-world).
 */
export function cautiousHints(hints: Partial<ToolAnnotations> | undefined): ToolAnnotations {
  const readOnly = hints?.readOnlyHint === true;
  return {
    readOnlyHint: readOnly,
    destructiveHint: hints?.destructiveHint ?? !readOnly,
    idempotentHint: hints?.idempotentHint ?? readOnly,
    openWorldHint: hints?.openWorldHint ?? true,
    sensitiveAction: hints?.sensitiveAction ?? false,
  };
}

/** Whether a call with these annotations may be replayed with the same payload. */
export function isRetrySafe(annotations: ToolAnnotations): boolean {
  return annotations.readOnlyHint || annotations.idempotentHint;
}

/** Compares risks: negative when `a` is lower than `b`. */
export function compareRisk(a: ToolRisk, b: ToolRisk): number {
  return TOOL_RISKS.indexOf(a) - TOOL_RISKS.indexOf(b);
}

/** The highest of the given risks (LOW for none). */
export function maxRisk(risks: Iterable<ToolRisk>): ToolRisk {
  let worst: ToolRisk = 'LOW';
  for (const risk of risks) if (compareRisk(risk, worst) > 0) worst = risk;
  return worst;
}

/** A tool's metadata as the registry holds it: the declaration, with tags defaulted to none. */
export function resolveMetadata(input: ToolMetadataInput): ToolMetadata {
  return {
    category: input.category,
    risk: input.risk,
    tags: [...(input.tags ?? [])],
    annotations: { ...input.annotations },
    ...(input.gatesItself === true ? { gatesItself: true } : {}),
    ...(input.orchestrates === true ? { orchestrates: true } : {}),
    ...(input.grantGroup ? { grantGroup: { ...input.grantGroup } } : {}),
    ...(input.taskSupport === 'optional' || input.taskSupport === 'required'
      ? { taskSupport: input.taskSupport }
      : {}),
    ...(input.questionsBeforeTask !== undefined &&
    input.questionsBeforeTask.length > 0 &&
    (input.taskSupport === 'optional' || input.taskSupport === 'required')
      ? { questionsBeforeTask: input.questionsBeforeTask.map((question) => ({ ...question })) }
      : {}),
  };
}

/** A tool's task support as declared, `forbidden` when it declared none. */
export function taskSupportOf(tool: {
  readonly metadata: ToolMetadataInput | ToolMetadata;
}): ToolTaskSupport {
  return tool.metadata.taskSupport ?? 'forbidden';
}

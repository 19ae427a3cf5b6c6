/** A semantic node: one fact, person, preference or concept the agent remembers. */
export interface MemoryNode {
  /** Current id, unique (e.g. `person:alice`). */
  readonly id: string;
  /** The remembered text. */
  readonly text: string;
  /** What kind of node it is (`fact`, `person`, `preference`, `project` …); free text. */
  readonly role: string;
  /** Importance; higher ranks first among equal text matches. Default 1. */
  readonly weight: number;
  /** Earlier ids of this node, left by id migrations; each still finds it. */
  readonly aliases: readonly string[];
  /** Creation time, ms since the epoch. */
  readonly createdAt: number;
  /** Last change, ms since the epoch. */
  readonly updatedAt: number;
}

/** A directed, named link between two nodes. */
export interface MemoryEdge {
  /** Id of the node the edge starts at. */
  readonly from: string;
  /** Id of the node the edge ends at. */
  readonly to: string;
  /** What the link means, in active voice (`works_on`, `prefers`). */
  readonly relation: string;
  /** Creation time, ms since the epoch. */
  readonly createdAt: number;
}

/** One tool call inside an episode. Raw arguments are only present when the host gave them. */
export interface EpisodeToolCall {
  /** The tool that was called. */
  readonly toolId: string;
  /** `success`, `failure`, `timeout` … as the trace recorder reported it. */
  readonly outcome: string;
  /** The call id, when known. */
  readonly callId?: string;
  /** How long the call took, in ms. */
  readonly durationMs?: number;
  /** Short error slug for failed calls. */
  readonly errorSlug?: string;
  /** Argument template or values, when the host recorded them (never secrets). */
  readonly args?: Readonly<Record<string, unknown>>;
}

/** A time-stamped event: what happened in a session, with the tool calls it held. */
export interface MemoryEpisode {
  /** Unique episode id. */
  readonly id: string;
  /** The agent session it belongs to. */
  readonly sessionId: string;
  /** One or two sentences saying what happened. */
  readonly summary: string;
  /** The tool calls, in order. */
  readonly toolCalls: readonly EpisodeToolCall[];
  /** Start time, ms since the epoch. */
  readonly startedAt: number;
  /** End time, ms since the epoch. */
  readonly endedAt: number;
}

/** A declared parameter of a macro. */
export interface MacroParam {
  /** Placeholder name used as `{name}` in step arguments. */
  readonly name: string;
  /** What the value means. */
  readonly description?: string;
  /** The JSON type of the value. Default `string`. */
  readonly type?: 'string' | 'number' | 'boolean';
}

/** One step of a macro: a tool and its argument template. */
export interface MacroStep {
  /** The tool to call. */
  readonly tool: string;
  /**
   * Argument template. String values may hold `{param}` placeholders (replaced by parameter
   * values) and `{0}`-style step references (left for `tool_batch_run` / `shortcut_run`).
   */
  readonly args: Readonly<Record<string, unknown>>;
}

/** A named, parameterised sequence of tool calls that worked before. */
export interface MemoryMacro {
  /** Unique name (letters, digits, `_`, `.`, `-`). */
  readonly name: string;
  /** What the macro does. */
  readonly description: string;
  /** Declared parameters. */
  readonly params: readonly MacroParam[];
  /** The steps, in order. */
  readonly steps: readonly MacroStep[];
  /** How many recorded runs succeeded. */
  readonly successCount: number;
  /** How many recorded runs failed. */
  readonly failureCount: number;
  /** Creation time, ms since the epoch. */
  readonly createdAt: number;
  /** Last change, ms since the epoch. */
  readonly updatedAt: number;
  /** Last recorded run, ms since the epoch. */
  readonly lastUsedAt: number | undefined;
}

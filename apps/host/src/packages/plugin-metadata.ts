// The metadata of a third-party plugin's tools: what the author declared, completed cautiously.
import {
  type AnyToolDefinition,
  type AnyToolPackageEntry,
  cautiousHints,
  type KeyedInputRequest,
  riskFromHints,
  TOOL_CATEGORIES,
  TOOL_RISKS,
  type ToolAnnotations,
  type ToolCategory,
  type ToolMetadataInput,
  type ToolPackageContribution,
  ToolRegistry,
  type ToolRisk,
} from '@toolsys/core-tool-registry';

/** What a plugin, plain JavaScript built against any kernel version, may have declared. */
interface DeclaredMetadata {
  readonly category?: unknown;
  readonly risk?: unknown;
  readonly tags?: unknown;
  readonly annotations?: Partial<Record<keyof ToolAnnotations, unknown>>;
  readonly taskSupport?: unknown;
  readonly questionsBeforeTask?: unknown;
}

const INPUT_METHODS = ['elicitation/create', 'sampling/createMessage', 'roots/list'];

/** The well-formed questions of a plugin's `questionsBeforeTask` (the others are dropped). */
function questionsOf(declared: unknown): KeyedInputRequest[] {
  if (!Array.isArray(declared)) return [];
  return declared.filter(
    (question): question is KeyedInputRequest =>
      typeof question === 'object' &&
      question !== null &&
      typeof question.key === 'string' &&
      /^[A-Za-z0-9_.-]{1,64}$/.test(question.key) &&
      INPUT_METHODS.includes(question.method) &&
      (question.params === undefined ||
        (typeof question.params === 'object' && question.params !== null)),
  );
}

const HINT_KEYS = [
  'readOnlyHint',
  'destructiveHint',
  'idempotentHint',
  'openWorldHint',
  'sensitiveAction',
] as const satisfies ReadonlyArray<keyof ToolAnnotations>;

/**
 * The metadata of a plugin's tool. A declared risk is kept; without one the risk follows the
 * declared hints (`riskFromHints`: no hints is MEDIUM, never LOW, so the default policy asks).
 * Missing hints take the cautious value, and a HIGH risk tool is sensitive unless it says not.
 * A category that is not one of the kernel's is `utility`. A declared task support (`optional`,
 * `required`) is kept: it only lets a client run the call as a task.
 */
export function pluginToolMetadata(declared: DeclaredMetadata | undefined): ToolMetadataInput {
  const hints: Partial<Record<keyof ToolAnnotations, boolean>> = {};
  for (const key of HINT_KEYS) {
    const value = declared?.annotations?.[key];
    if (typeof value === 'boolean') hints[key] = value;
  }
  const risk = TOOL_RISKS.includes(declared?.risk as ToolRisk)
    ? (declared?.risk as ToolRisk)
    : riskFromHints(hints);
  const category = TOOL_CATEGORIES.includes(declared?.category as ToolCategory)
    ? (declared?.category as ToolCategory)
    : 'utility';
  const tags = Array.isArray(declared?.tags)
    ? declared.tags.filter((tag): tag is string => typeof tag === 'string')
    : [];
  return {
    category,
    risk,
    tags,
    annotations: {
      ...cautiousHints(hints),
      sensitiveAction: hints.sensitiveAction ?? risk === 'HIGH',
    },
    ...(declared?.taskSupport === 'optional' || declared?.taskSupport === 'required'
      ? {
          taskSupport: declared.taskSupport,
          questionsBeforeTask: questionsOf(declared.questionsBeforeTask),
        }
      : {}),
  };
}

/** The tool with its metadata completed; every other field is the plugin's own. */
function withPluginMetadata(tool: AnyToolDefinition): AnyToolDefinition {
  const metadata = pluginToolMetadata(tool.metadata as DeclaredMetadata | undefined);
  return ToolRegistry.copyTool(tool, { metadata });
}

/**
 * A plugin's entry whose tools carry complete metadata (see {@link pluginToolMetadata}), so a
 * plugin that declares less than the kernel requires is asked for, never let through.
 */
export function withPluginToolMetadata(entry: AnyToolPackageEntry): AnyToolPackageEntry {
  return {
    name: entry.name,
    key: entry.key,
    description: entry.description,
    configSchema: entry.configSchema,
    detect: (environment) => entry.detect(environment),
    async create(context): Promise<ToolPackageContribution> {
      const contribution = await entry.create(context);
      return {
        tools: contribution.tools.map(withPluginMetadata),
        ...(contribution.dispose ? { dispose: () => contribution.dispose?.() } : {}),
        ...(contribution.endSession
          ? { endSession: (sessionId: string) => contribution.endSession?.(sessionId) }
          : {}),
        // What the plugin offers besides tools (prompts, resources, completers) passes as it is.
        ...(contribution.offerings ? { offerings: contribution.offerings } : {}),
      };
    },
  };
}

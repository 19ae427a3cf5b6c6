// Skills and shortcuts — tools users define at run time — offered as MCP prompts with arguments.
import {
  type CallPrincipal,
  isToolVisibleTo,
  type JsonSchema,
  type RegisteredTool,
  type ToolRegistry,
} from '@toolsys/core-tool-registry';
import { skillOwner } from '@toolsys/core-tools';
import { OfferingError, type PromptInfo, type PromptResult } from '../server/offerings.js';

/** The owner prefix of a skill's tools in the registry (`skillOwner` of core-tools). */
const SKILL_OWNER_PREFIX = skillOwner('');

/**
 * Whether a registered tool was defined at run time: a shortcut (tagged so) or a tool of an
 * installed skill (registered under its skill's owner). The skill_* tools themselves are not.
 */
export function isRuntimeTool(tool: RegisteredTool): boolean {
  return tool.metadata.tags.includes('shortcut') || tool.owner.startsWith(SKILL_OWNER_PREFIX);
}

/** The principal key of who defined a run-time tool, when only that principal sees it. */
export function definerOf(tool: RegisteredTool): string | undefined {
  return tool.definedBy;
}

/** Whether `principal` may see `tool` (a run-time tool only its definer sees). */
export function isVisibleTool(tool: RegisteredTool, principal: CallPrincipal): boolean {
  return isToolVisibleTo(tool, principal);
}

/** The run-time tools `principal` may see, by id. */
export function runtimePromptTools(
  registry: ToolRegistry,
  principal: CallPrincipal,
): RegisteredTool[] {
  return registry
    .list(principal)
    .filter((tool) => isRuntimeTool(tool) && isVisibleTool(tool, principal));
}

/** A run-time tool as `prompts/list` shows it: its parameters are the prompt's arguments. */
export function runtimePromptInfo(tool: RegisteredTool): PromptInfo {
  const schema = tool.inputSchema.jsonSchema;
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const properties = Object.entries(propertiesOf(tool));
  return {
    name: tool.id,
    title: `${tool.metadata.tags.includes('shortcut') ? 'Shortcut' : 'Skill'} ${tool.id}`,
    description: tool.description,
    ...(properties.length > 0
      ? {
          arguments: properties.map(([name, property]) => ({
            name,
            ...(typeof property.description === 'string'
              ? { description: describeArgument(property) }
              : {}),
            // A parameter with a default may be left out.
            required: required.has(name) && property.default === undefined,
          })),
        }
      : {}),
  };
}

/**
 * The messages that run a shortcut or a skill tool: one user message asking to call it with
 * `args`, each converted to its parameter's type (`"3"` → 3 for a number), through `tool_call`
 * when the deployment lists only the discovery tools. A value that does not convert is
 * `invalid_params` naming the argument.
 */
export function renderRuntimePrompt(
  tool: RegisteredTool,
  args: Readonly<Record<string, string>>,
  toolMode: 'all' | 'discover' = 'all',
): PromptResult {
  const properties = propertiesOf(tool);
  const typed: Record<string, unknown> = {};
  for (const [name, text] of Object.entries(args)) {
    typed[name] = convertArgument(name, text, properties[name]);
  }
  const kind = tool.metadata.tags.includes('shortcut') ? 'shortcut' : 'skill tool';
  return {
    description: tool.description,
    messages: [
      {
        role: 'user',
        content: {
          type: 'text',
          text:
            toolMode === 'discover'
              ? `Run the ${kind} ${tool.id}: call tool_call with these arguments, then report its result.\n${JSON.stringify({ id: tool.id, arguments: typed }, null, 2)}`
              : `Run the ${kind} ${tool.id}: call the tool ${tool.id} with these arguments, then report its result.\n${JSON.stringify(typed, null, 2)}`,
        },
      },
    ],
  };
}

/** Values a parameter's schema allows, for completion: its enum, or true/false. */
export function schemaValues(tool: RegisteredTool, argument: string): string[] | undefined {
  const property = propertiesOf(tool)[argument];
  if (property === undefined) return undefined;
  if (Array.isArray(property.enum)) return property.enum.map(String);
  if (property.type === 'boolean') return ['false', 'true'];
  return undefined;
}

/** The parameters of a tool's argument schema, by name. */
function propertiesOf(tool: RegisteredTool): Readonly<Record<string, JsonSchema>> {
  const properties = tool.inputSchema.jsonSchema.properties;
  return typeof properties === 'object' && properties !== null
    ? (properties as Record<string, JsonSchema>)
    : {};
}

function describeArgument(property: JsonSchema): string {
  const type = typeof property.type === 'string' ? ` (${property.type})` : '';
  return `${property.description as string}${type}`;
}

function convertArgument(name: string, text: string, property: JsonSchema | undefined): unknown {
  const type = property?.type;
  const refuse = (expected: string): never => {
    throw new OfferingError('invalid_params', `arguments.${name}: expected ${expected}.`);
  };
  switch (type) {
    case 'number':
    case 'integer': {
      const value = Number(text);
      if (text.trim() === '' || !Number.isFinite(value)) return refuse('a number');
      if (type === 'integer' && !Number.isInteger(value)) return refuse('an integer');
      return value;
    }
    case 'boolean':
      if (text === 'true' || text === 'false') return text === 'true';
      return refuse('true or false');
    case 'object':
    case 'array':
      try {
        return JSON.parse(text);
      } catch {
        return refuse(`JSON text of an ${type}`);
      }
    default:
      return text;
  }
}

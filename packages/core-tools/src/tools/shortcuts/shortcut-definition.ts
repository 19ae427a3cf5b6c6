import type { CallPrincipal, ToolRegistry } from '@toolsys/core-tool-registry';
import {
  describeType,
  failureResult,
  MAX_BATCH_STEPS,
  maxRisk,
  ToolErrorCode,
  type ToolFailure,
  type ToolRisk,
} from '@toolsys/core-tool-registry';

/** The type of a shortcut parameter. */
export type ShortcutParamType = 'string' | 'number' | 'integer' | 'boolean';

/** A parameter a shortcut declares; steps use it as `{name}`. */
export interface ShortcutParam {
  /** Identifier used as `{name}` in step templates. */
  readonly name: string;
  /** The JSON type of the value. */
  readonly type: ShortcutParamType;
  /** What the parameter means, for the model. */
  readonly description: string;
  /** Value used when the caller leaves the parameter out; required when absent. */
  readonly default?: string | number | boolean;
}

/** One step template: a tool and its arguments as JSON text with placeholders. */
export interface ShortcutStepTemplate {
  /** The tool id the step calls. */
  readonly tool: string;
  /** JSON text; `{param}` placeholders and `{n}` step references (`{{x}}` is a literal `{x}`). */
  readonly args: string;
}

/** A validated shortcut: a named, parameterised sequence of tool calls. */
export interface ShortcutDefinition {
  /** Id in the `shortcut.*` namespace, e.g. `shortcut.backup_notes`. */
  readonly id: string;
  /** What it does and when to use it (becomes the tool description). */
  readonly description: string;
  /** Conditions the model should check before running it (shown in the description). */
  readonly preconditions: readonly string[];
  /** Declared parameters, each used by at least one step. */
  readonly params: readonly ShortcutParam[];
  /** Step templates, run in order as a batch. */
  readonly steps: readonly ShortcutStepTemplate[];
  /** The worst risk of its steps (risk inheritance). */
  readonly risk: ToolRisk;
}

/** Options for {@link parseShortcutDefinition}. */
export interface ParseShortcutOptions {
  /** Registry the step tools are looked up in (unknown tools are refused). */
  registry: ToolRegistry;
  /** Skip the unknown-tool check (loading persisted shortcuts before every package registered). */
  allowUnknownTools?: boolean;
  /** Whose tools the steps may name (its own run-time tools and the shared ones). Default: `local`. */
  principal?: CallPrincipal;
}

const ID_PATTERN = /^shortcut\.[a-z][a-z0-9_]*$/;
const NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
const PARAM_TYPES: readonly ShortcutParamType[] = ['string', 'number', 'integer', 'boolean'];
const FORBIDDEN_STEP_TOOLS = new Set([
  'tool_batch_run',
  'shortcut_define',
  'shortcut_list',
  'shortcut_run',
]);
const PLACEHOLDER = /\{\{([A-Za-z_][A-Za-z0-9_]*|\d+)\}\}|\{([A-Za-z_][A-Za-z0-9_]*|\d+)\}/y;
const WHOLE_STRING = /"\{([A-Za-z_][A-Za-z0-9_]*|\d+)\}"/y;

/**
 * Validates a raw shortcut definition. Every problem is refused with INVALID_ARGUMENT naming its
 * field: a bad id, unknown or nested tools, undeclared placeholders, dead parameters (declared,
 * never used), forward step references, templates that are not JSON, and too many steps.
 */
export function parseShortcutDefinition(
  raw: unknown,
  options: ParseShortcutOptions,
): { ok: true; definition: ShortcutDefinition } | { ok: false; failure: ToolFailure } {
  let value = raw;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch (error) {
      return invalid('definition', `not valid JSON (${(error as Error).message})`);
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return invalid('definition', `expected an object, received ${describeType(value)}`);
  }
  const input = value as Record<string, unknown>;
  const { id, description } = input;
  if (typeof id !== 'string' || !ID_PATTERN.test(id)) {
    return invalid(
      'id',
      `expected an id like "shortcut.backup_notes" (shortcut. then lower-case letters, digits, _), received ${JSON.stringify(id)}`,
    );
  }
  if (typeof description !== 'string' || description.trim() === '') {
    return invalid('description', 'required (say what the shortcut does and when to use it)');
  }
  const preconditions: string[] = [];
  if (input.preconditions !== undefined) {
    if (!Array.isArray(input.preconditions)) {
      return invalid(
        'preconditions',
        `expected an array of strings, received ${describeType(input.preconditions)}`,
      );
    }
    for (const [index, precondition] of input.preconditions.entries()) {
      if (typeof precondition !== 'string') {
        return invalid(
          `preconditions.${index}`,
          `expected a string, received ${describeType(precondition)}`,
        );
      }
      preconditions.push(precondition);
    }
  }
  const params: ShortcutParam[] = [];
  const rawParams = input.params ?? [];
  if (!Array.isArray(rawParams)) {
    return invalid('params', `expected an array, received ${describeType(rawParams)}`);
  }
  for (const [index, rawParam] of rawParams.entries()) {
    const field = `params.${index}`;
    if (typeof rawParam !== 'object' || rawParam === null || Array.isArray(rawParam)) {
      return invalid(
        field,
        `expected {"name", "type", "description"}, received ${describeType(rawParam)}`,
      );
    }
    const param = rawParam as Record<string, unknown>;
    if (
      typeof param.name !== 'string' ||
      !NAME_PATTERN.test(param.name) ||
      /^\d/.test(param.name)
    ) {
      return invalid(
        `${field}.name`,
        'expected an identifier (letters, digits, _; not starting with a digit)',
      );
    }
    if (params.some((existing) => existing.name === param.name)) {
      return invalid(`${field}.name`, `"${param.name}" is declared twice`);
    }
    const type = param.type ?? 'string';
    if (!PARAM_TYPES.includes(type as ShortcutParamType)) {
      return invalid(
        `${field}.type`,
        `expected one of ${PARAM_TYPES.join(', ')}, received ${JSON.stringify(type)}`,
      );
    }
    const defaultValue = param.default;
    if (defaultValue !== undefined && !matchesType(defaultValue, type as ShortcutParamType)) {
      return invalid(
        `${field}.default`,
        `expected a ${String(type)}, received ${describeType(defaultValue)}`,
      );
    }
    params.push({
      name: param.name,
      type: type as ShortcutParamType,
      description: typeof param.description === 'string' ? param.description : '',
      ...(defaultValue !== undefined ? { default: defaultValue as string | number | boolean } : {}),
    });
  }
  const rawSteps = input.steps;
  if (!Array.isArray(rawSteps) || rawSteps.length === 0) {
    return invalid('steps', 'expected a non-empty array of {"tool", "args"}');
  }
  if (rawSteps.length > MAX_BATCH_STEPS) {
    return invalid(
      'steps',
      `${rawSteps.length} steps is more than the limit of ${MAX_BATCH_STEPS}`,
    );
  }
  const steps: ShortcutStepTemplate[] = [];
  const used = new Set<string>();
  const risks: ToolRisk[] = [];
  for (const [index, rawStep] of rawSteps.entries()) {
    const field = `steps.${index}`;
    if (typeof rawStep !== 'object' || rawStep === null || Array.isArray(rawStep)) {
      return invalid(field, `expected {"tool", "args"}, received ${describeType(rawStep)}`);
    }
    const { tool, args } = rawStep as { tool?: unknown; args?: unknown };
    if (typeof tool !== 'string' || tool === '')
      return invalid(`${field}.tool`, 'required (a tool id)');
    if (FORBIDDEN_STEP_TOOLS.has(tool) || tool.startsWith('shortcut.')) {
      return invalid(`${field}.tool`, `${tool} cannot be a step of a shortcut (no nesting)`);
    }
    const registered = options.registry.get(tool, options.principal);
    if (!registered && !options.allowUnknownTools) {
      return invalid(
        `${field}.tool`,
        `unknown tool "${tool}"; define shortcuts only from registered tools`,
      );
    }
    if (registered) risks.push(registered.metadata.risk);
    let template: string;
    if (args === undefined) template = '{}';
    else if (typeof args === 'string') template = args;
    else if (typeof args === 'object' && args !== null && !Array.isArray(args)) {
      template = JSON.stringify(args);
    } else {
      return invalid(
        `${field}.args`,
        `expected an object or JSON text, received ${describeType(args)}`,
      );
    }
    const names = placeholdersOf(template);
    for (const name of names) {
      if (/^\d+$/.test(name)) {
        if (Number(name) >= index) {
          return invalid(
            `${field}.args`,
            `step reference {${name}} points to a step that has not run (step ${index} may use {0}..{${index - 1}})`,
          );
        }
        continue;
      }
      if (!params.some((param) => param.name === name)) {
        return invalid(
          `${field}.args`,
          `placeholder {${name}} is not a declared parameter; declare it in params or write {{${name}}} for a literal`,
        );
      }
      used.add(name);
    }
    const sample = renderTemplate(template, sampleValues(params));
    if (!sample.ok) return invalid(`${field}.args`, sample.problem);
    steps.push({ tool, args: template });
  }
  for (const [index, param] of params.entries()) {
    if (!used.has(param.name)) {
      return invalid(
        `params.${index}.name`,
        `"${param.name}" is declared but no step uses {${param.name}}; remove it or use it`,
      );
    }
  }
  return {
    ok: true,
    definition: {
      id,
      description: description.trim(),
      preconditions,
      params,
      steps,
      risk: maxRisk(risks),
    },
  };
}

/** The placeholder names a template uses (parameters and step indexes), literals excluded. */
export function placeholdersOf(template: string): string[] {
  const names: string[] = [];
  for (let index = 0; index < template.length; index += 1) {
    if (template[index] !== '{') continue;
    PLACEHOLDER.lastIndex = index;
    const match = PLACEHOLDER.exec(template);
    if (!match) continue;
    if (match[2] !== undefined) names.push(match[2]);
    index += match[0].length - 1;
  }
  return names;
}

/**
 * Substitutes parameters into a JSON template, JSON-aware: inside a string literal a string value is
 * escaped as JSON string content and numbers or booleans are written as text; a literal that is
 * exactly `"{param}"` becomes the bare value; a bare `{param}` outside strings becomes a JSON value.
 * Step references `{n}` are kept for the batch runner. The result is always parsed as JSON.
 */
export function renderTemplate(
  template: string,
  values: Readonly<Record<string, unknown>>,
): { ok: true; args: Record<string, unknown> } | { ok: false; problem: string } {
  let out = '';
  let inString = false;
  for (let index = 0; index < template.length; index += 1) {
    const char = template[index] as string;
    if (inString) {
      if (char === '\\') {
        out += char + (template[index + 1] ?? '');
        index += 1;
        continue;
      }
      if (char === '"') {
        inString = false;
        out += char;
        continue;
      }
      if (char === '{') {
        PLACEHOLDER.lastIndex = index;
        const match = PLACEHOLDER.exec(template);
        if (match) {
          index += match[0].length - 1;
          // `{{name}}` is a literal `{name}`; `{{n}}` stays escaped for the batch runner.
          if (match[1] !== undefined) out += /^\d+$/.test(match[1]) ? match[0] : `{${match[1]}}`;
          else {
            const name = match[2] as string;
            if (/^\d+$/.test(name)) out += `{${name}}`;
            else if (!(name in values))
              return { ok: false, problem: `missing value for {${name}}` };
            else {
              const value = values[name];
              out += typeof value === 'string' ? JSON.stringify(value).slice(1, -1) : String(value);
            }
          }
          continue;
        }
      }
      out += char;
      continue;
    }
    if (char === '"') {
      WHOLE_STRING.lastIndex = index;
      const whole = WHOLE_STRING.exec(template);
      if (whole) {
        const name = whole[1] as string;
        if (!/^\d+$/.test(name)) {
          if (!(name in values)) return { ok: false, problem: `missing value for {${name}}` };
          out += JSON.stringify(values[name]);
          index += whole[0].length - 1;
          continue;
        }
      }
      inString = true;
      out += char;
      continue;
    }
    if (char === '{') {
      PLACEHOLDER.lastIndex = index;
      const match = PLACEHOLDER.exec(template);
      if (match && match[2] !== undefined) {
        const name = match[2];
        index += match[0].length - 1;
        if (/^\d+$/.test(name)) out += `"{${name}}"`;
        else if (!(name in values)) return { ok: false, problem: `missing value for {${name}}` };
        else out += JSON.stringify(values[name]);
        continue;
      }
    }
    out += char;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(out);
  } catch (error) {
    return {
      ok: false,
      problem: `the template is not valid JSON after substitution (${(error as Error).message})`,
    };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return {
      ok: false,
      problem: `the template must be a JSON object, got ${describeType(parsed)}`,
    };
  }
  return { ok: true, args: parsed as Record<string, unknown> };
}

/** Renders every step of a shortcut with the given parameter values. */
export function renderShortcutSteps(
  definition: ShortcutDefinition,
  values: Readonly<Record<string, unknown>>,
):
  | { ok: true; steps: { tool: string; args: Record<string, unknown> }[] }
  | { ok: false; failure: ToolFailure } {
  const steps: { tool: string; args: Record<string, unknown> }[] = [];
  for (const [index, step] of definition.steps.entries()) {
    const rendered = renderTemplate(step.args, values);
    if (!rendered.ok) return invalid(`steps.${index}.args`, rendered.problem);
    steps.push({ tool: step.tool, args: rendered.args });
  }
  return { ok: true, steps };
}

function sampleValues(params: readonly ShortcutParam[]): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const param of params) {
    values[param.name] =
      param.type === 'string'
        ? 'sample "text" \\ with\nescapes'
        : param.type === 'boolean'
          ? true
          : 1;
  }
  return values;
}

function matchesType(value: unknown, type: ShortcutParamType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
  }
}

function invalid(field: string, problem: string): { ok: false; failure: ToolFailure } {
  return {
    ok: false,
    failure: failureResult(ToolErrorCode.INVALID_ARGUMENT, `${field}: ${problem}`, {
      field,
      hint: 'Fix this field of the shortcut definition and call shortcut_define again.',
    }),
  };
}

import type { MacroParam, MacroStep } from './memory-model.js';

/** A parameter value for a macro placeholder. */
export type MacroArgumentValue = string | number | boolean;

/** Steps with their placeholders filled, and what could not be filled. */
export interface FilledMacroSteps {
  /** The steps; placeholders without a value are left as written. */
  readonly steps: MacroStep[];
  /** Declared params that got no value (the steps are not ready to run while any remain). */
  readonly missing: string[];
  /** Values of the wrong type, as `name: expected number`. */
  readonly mistyped: string[];
}

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const WHOLE_PLACEHOLDER = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/**
 * Fills `{param}` placeholders in macro step arguments, JSON-aware: a string that is exactly one
 * placeholder becomes the value itself (numbers and booleans stay typed); a placeholder inside a
 * longer string is replaced by the value's text. `{0}`-style step references are left untouched
 * for `tool_batch_run` and `shortcut_run` to resolve.
 */
export function fillMacroSteps(
  steps: readonly MacroStep[],
  params: readonly MacroParam[],
  values: Readonly<Record<string, MacroArgumentValue>>,
): FilledMacroSteps {
  const declared = new Map(params.map((param) => [param.name, param]));
  const mistyped: string[] = [];
  for (const [name, value] of Object.entries(values)) {
    const type = declared.get(name)?.type ?? 'string';
    if (declared.has(name) && typeof value !== type) mistyped.push(`${name}: expected ${type}`);
  }
  const missing = params.map((param) => param.name).filter((name) => !(name in values));
  const fill = (node: unknown): unknown => {
    if (typeof node === 'string') {
      const whole = WHOLE_PLACEHOLDER.exec(node);
      if (whole && declared.has(whole[1] as string) && (whole[1] as string) in values) {
        return values[whole[1] as string];
      }
      return node.replace(PLACEHOLDER, (text, name: string) =>
        declared.has(name) && name in values ? String(values[name]) : text,
      );
    }
    if (Array.isArray(node)) return node.map(fill);
    if (typeof node === 'object' && node !== null) {
      return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, fill(value)]));
    }
    return node;
  };
  return {
    steps: steps.map((step) => ({
      tool: step.tool,
      args: fill(step.args) as Record<string, unknown>,
    })),
    missing,
    mistyped,
  };
}

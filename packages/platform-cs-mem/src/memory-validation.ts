// The bounds on what a MemoryStore records, and the checks that throw INVALID_INPUT or
// INVALID_QUERY before anything is written or read.
import type { MacroParam, MacroStep } from './memory-model.js';
import { MemoryStoreError } from './memory-store-error.js';

export const MAX_ID_LENGTH = 200;
export const MAX_TEXT_LENGTH = 100_000;
export const MAX_MACRO_STEPS = 16;
export const MACRO_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;
export const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
export const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

export function requireText(
  value: unknown,
  field: string,
  maxLength: number,
  options: { trim?: boolean } = {},
): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new MemoryStoreError('INVALID_INPUT', `${field}: must be a non-empty string`, { field });
  }
  if (value.length > maxLength) {
    throw new MemoryStoreError(
      'INVALID_INPUT',
      `${field}: is ${value.length} characters long; at most ${maxLength} are allowed`,
      { field },
    );
  }
  return options.trim === false ? value : value.trim();
}

export function requireWeight(value: number): number {
  if (!Number.isFinite(value) || value < 0) {
    throw new MemoryStoreError('INVALID_INPUT', 'weight: must be a finite number ≥ 0', {
      field: 'weight',
    });
  }
  return value;
}

export function requireLimit(value: number, max: number, field: string, min = 1): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new MemoryStoreError(
      'INVALID_QUERY',
      `${field}: must be an integer from ${min} to ${max}, got ${value}`,
      { field },
    );
  }
  return value;
}

export function validateParams(params: readonly MacroParam[]): MacroParam[] {
  const names = new Set<string>();
  return params.map((param, index) => {
    if (!PARAM_NAME.test(param.name) || names.has(param.name)) {
      throw new MemoryStoreError(
        'INVALID_INPUT',
        `params.${index}.name: "${param.name}" must be a unique identifier (letters, digits, _)`,
        { field: `params.${index}.name` },
      );
    }
    names.add(param.name);
    return { ...param };
  });
}

export function validateSteps(
  steps: readonly MacroStep[],
  params: readonly MacroParam[],
): MacroStep[] {
  if (!Array.isArray(steps) || steps.length === 0 || steps.length > MAX_MACRO_STEPS) {
    throw new MemoryStoreError('INVALID_INPUT', `steps: must hold 1 to ${MAX_MACRO_STEPS} steps`, {
      field: 'steps',
    });
  }
  const declared = new Set(params.map((param) => param.name));
  const used = new Set<string>();
  const validated = steps.map((step, index) => {
    requireText(step.tool, `steps.${index}.tool`, MAX_ID_LENGTH);
    const args = step.args ?? {};
    for (const placeholder of JSON.stringify(args).matchAll(PLACEHOLDER)) {
      const name = placeholder[1] as string;
      if (!declared.has(name)) {
        throw new MemoryStoreError(
          'INVALID_INPUT',
          `steps.${index}.args: placeholder {${name}} is not a declared param`,
          { field: `steps.${index}.args` },
        );
      }
      used.add(name);
    }
    return { tool: step.tool.trim(), args };
  });
  // Same rule as shortcuts: a declared param no step uses is a mistake, not an option.
  for (const [index, param] of params.entries()) {
    if (!used.has(param.name)) {
      throw new MemoryStoreError(
        'INVALID_INPUT',
        `params.${index}.name: "${param.name}" is declared but no step uses {${param.name}}`,
        { field: `params.${index}.name` },
      );
    }
  }
  return validated;
}

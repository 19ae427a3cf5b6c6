import { OfferingError } from '../server/offerings.js';

/** Bounds on what a client sends to prompts, resources and completion. */
export const OFFERING_LIMITS = Object.freeze({
  /** Characters of one prompt argument. */
  argumentChars: 16 * 1024,
  /** Characters of all prompt arguments together. */
  totalArgumentChars: 64 * 1024,
  /** Prompt arguments in one request. */
  argumentCount: 64,
  /** Characters of the value being completed. */
  completionValueChars: 1024,
  /** Characters of a resource URI. */
  uriChars: 8 * 1024,
  /** Completion values in one answer (the protocol's bound). */
  completionValues: 100,
});

/**
 * Refuses prompt arguments over the bounds, with names the prompt does not declare, or without
 * one it requires; each refusal is `invalid_params` naming the argument and what to send.
 */
export function checkPromptArguments(
  prompt: string,
  declared: readonly { readonly name: string; readonly required?: boolean }[],
  args: Readonly<Record<string, string>>,
): void {
  const names = Object.keys(args);
  if (names.length > OFFERING_LIMITS.argumentCount) {
    throw new OfferingError(
      'invalid_params',
      `Prompt ${prompt} takes at most ${OFFERING_LIMITS.argumentCount} arguments; ${names.length} were sent.`,
    );
  }
  let total = 0;
  for (const name of names) {
    const value = args[name];
    if (typeof value !== 'string') {
      throw new OfferingError('invalid_params', `arguments.${name}: expected a string.`);
    }
    if (!declared.some((argument) => argument.name === name)) {
      const known = declared.map((argument) => argument.name).join(', ') || 'none';
      throw new OfferingError(
        'invalid_params',
        `arguments.${truncate(name)}: prompt ${prompt} has no such argument (it takes: ${known}).`,
      );
    }
    if (value.length > OFFERING_LIMITS.argumentChars) {
      throw new OfferingError(
        'invalid_params',
        `arguments.${name}: ${value.length} characters, at most ${OFFERING_LIMITS.argumentChars} are accepted.`,
      );
    }
    total += value.length;
  }
  if (total > OFFERING_LIMITS.totalArgumentChars) {
    throw new OfferingError(
      'invalid_params',
      `Prompt ${prompt}: ${total} characters of arguments, at most ${OFFERING_LIMITS.totalArgumentChars} together are accepted.`,
    );
  }
  for (const argument of declared) {
    if (argument.required && args[argument.name] === undefined) {
      throw new OfferingError(
        'invalid_params',
        `arguments.${argument.name}: required by prompt ${prompt}; pass it as a string.`,
      );
    }
  }
}

/** Refuses a completion value over its bound (`invalid_params`). */
export function checkCompletionValue(argument: string, value: string): void {
  if (typeof value !== 'string' || value.length > OFFERING_LIMITS.completionValueChars) {
    throw new OfferingError(
      'invalid_params',
      `argument.value of ${truncate(argument)}: at most ${OFFERING_LIMITS.completionValueChars} characters are completed.`,
    );
  }
}

/** Refuses a URI over its bound (`invalid_params`). */
export function checkUri(uri: string): void {
  if (typeof uri !== 'string' || uri.length > OFFERING_LIMITS.uriChars) {
    throw new OfferingError(
      'invalid_params',
      `uri: at most ${OFFERING_LIMITS.uriChars} characters are accepted.`,
    );
  }
}

/** A client-given name shortened for a message. */
function truncate(text: string): string {
  return text.length > 64 ? `${text.slice(0, 64)}…` : text;
}

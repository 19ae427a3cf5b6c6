import { ToolError, ToolErrorCode } from '@toolsys/core-tool-registry';

/** Builds the INVALID_ARGUMENT error for a field, with a next step for the model. */
export function invalidArgument(field: string, problem: string, hint?: string): ToolError {
  return new ToolError(ToolErrorCode.INVALID_ARGUMENT, `${field}: ${problem}`, {
    field,
    ...(hint === undefined ? {} : { hint }),
  });
}

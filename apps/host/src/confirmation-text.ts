import type { ConfirmationRequest, ConfirmFunction } from '@toolsys/core-tool-registry';
import { escapeInvisible } from '@toolsys/core-tool-registry/text';

/**
 * The request as a person must see it: every control, bidi and invisible character of the tool
 * id, the action and the reason shown as an escape (`\r`, `\x1b`, `\u202e`), so that nothing in
 * them can move the cursor, erase a line or reorder text. Plain line breaks of a multi-line
 * action (a script) stay line breaks; {@link confirmationLines} marks each of its lines.
 */
export function escapeConfirmationRequest(request: ConfirmationRequest): ConfirmationRequest {
  const action = escapeAction(request.action);
  const reason = [
    request.reason === undefined ? undefined : escapeInvisible(request.reason),
    action === undefined ? undefined : ESCAPE_NOTE,
  ].filter((part) => part !== undefined);
  return {
    ...request,
    toolId: escapeInvisible(request.toolId),
    action: action ?? request.action,
    ...(reason.length > 0 ? { reason: reason.join(' ') } : {}),
  };
}

/** Appended to the reason when the action had characters that are shown as escapes. */
export const ESCAPE_NOTE =
  '(The command contains control or invisible characters, shown as escapes such as \\r or \\x1b; a backslash of the command itself is shown as \\\\.)';

/**
 * The action with every control, bidi and invisible character as an escape, plain line breaks
 * kept; undefined when it has none. Then its own backslashes are doubled too, so that an escape
 * shown can only mean the character: `\\x1b` is the text, `\x1b` is ESC.
 */
function escapeAction(action: string): string | undefined {
  const keepNewlines = { keepNewlines: true };
  const plain = action.replaceAll('\t', ' ');
  if (escapeInvisible(plain, keepNewlines) === plain) return undefined;
  return escapeInvisible(action.replaceAll('\\', '\\\\'), keepNewlines).replaceAll('\t', '\\t');
}

/**
 * Wraps the confirm function of a deployment so that every question reaches it escaped (see
 * {@link escapeConfirmationRequest}): the one place all confirmations of the host pass through,
 * whatever tool asks and whichever way the user is asked (terminal prompt, MCP elicitation).
 */
export function escapingConfirm(confirm: ConfirmFunction): ConfirmFunction {
  return (request, signal) => confirm(escapeConfirmationRequest(request), signal);
}

/**
 * The lines of a confirmation as shown to the user: a heading naming the tool and its risk, each
 * line of the action behind `  | ` (so no line of a script can pass for the heading, the reason
 * or the question), then the reason, and what an "allow for the session" answer covers when the
 * tool is in a grant group. Expects an escaped request.
 */
export function confirmationLines(request: ConfirmationRequest): string[] {
  return [
    `${request.toolId} (${request.risk} risk) wants to run:`,
    ...request.action.split('\n').map((line) => `  | ${line}`),
    ...(request.reason ? [`  Reason: ${request.reason}`] : []),
    ...(request.grantGroup
      ? [`  "Allow for the session" covers ${escapeInvisible(request.grantGroup.covers)}.`]
      : []),
  ];
}

/** The next step when no one can confirm a call: the deployment config keys that allow a tool. */
export function configKeysHint(request: ConfirmationRequest): string {
  return `Do not retry; use a lower-risk tool, or ask the user to allow it: add "${request.toolId}" to permissions.alwaysAllow, or set permissions.${request.risk} to "allow", in toolsys.config.json.`;
}

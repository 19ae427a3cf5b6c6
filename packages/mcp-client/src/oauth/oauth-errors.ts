// The failures of signing in to an MCP server, as tool errors with one next step each. Text from
// the authorization server or the MCP server (error descriptions, issuers it names) is never
// repeated: in a mix-up attack it is written by the attacker.
import {
  AuthorizationServerMismatchError,
  InsecureTokenEndpointError,
  InsufficientScopeError,
  IssuerMismatchError,
  OAuthError,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { ToolError, ToolErrorCode } from '@toolsys/core-tool-registry';

/** The command that signs a user in to `server`, as shown in messages. */
export function loginCommand(server: string): string {
  return `toolsys mcp login ${server}`;
}

/** `server` has no usable token: someone has to sign in. */
export function signInRequired(server: string, why = 'needs sign-in'): ToolError {
  return new ToolError(
    ToolErrorCode.PERMISSION_DENIED,
    `MCP server "${server}" ${why}: run \`${loginCommand(server)}\`.`,
    {
      retryable: false,
      hint: `Ask the user to run \`${loginCommand(server)}\`, then retry; do not retry before.`,
      details: { server, reason: 'sign_in_required' },
    },
  );
}

/** An interactive sign-in that did not finish (nobody completed it in time, the browser step failed). */
export function signInUnfinished(server: string, why: string): ToolError {
  return new ToolError(
    ToolErrorCode.PERMISSION_DENIED,
    `Sign-in to MCP server "${server}" did not finish: ${why}.`,
    {
      retryable: false,
      hint: `Ask the user to run \`${loginCommand(server)}\` again and complete the sign-in in the browser.`,
      details: { server, reason: 'sign_in_required' },
    },
  );
}

/** The sign-in was refused for a reason that signing in again does not fix. */
export function authRefused(server: string, what: string, cause?: unknown): ToolError {
  return new ToolError(
    ToolErrorCode.PERMISSION_DENIED,
    `Sign-in to MCP server "${server}" was refused: ${what}.`,
    {
      retryable: false,
      hint: 'Do not retry; ask the user to check the server URL and its authorization server.',
      details: { server, reason: 'auth_refused' },
      ...(cause === undefined ? {} : { cause }),
    },
  );
}

/**
 * The tool error an authorization failure becomes, or undefined for an error that is not one.
 * Each known failure gets a fixed message of its own.
 */
export function fromAuthError(server: string, error: unknown): ToolError | undefined {
  if (error instanceof ToolError) return error;
  if (error instanceof IssuerMismatchError) {
    return authRefused(
      server,
      error.kind === 'metadata'
        ? 'the authorization server metadata names another issuer than the one it was fetched from'
        : 'the authorization response came from another issuer than the one asked (RFC 9207)',
      error,
    );
  }
  if (error instanceof AuthorizationServerMismatchError) {
    return authRefused(server, 'the authorization server changed during sign-in', error);
  }
  if (error instanceof InsecureTokenEndpointError) {
    return authRefused(
      server,
      'its token endpoint is plain http: on a host that is not loopback (https is required)',
      error,
    );
  }
  if (error instanceof InsufficientScopeError) {
    return signInRequired(server, 'needs a sign-in with more permissions');
  }
  if (error instanceof UnauthorizedError) return signInRequired(server);
  if (error instanceof OAuthError) {
    return signInRequired(server, `refused its credentials (${error.code})`);
  }
  if (error instanceof Error && /protected resource .* does not match/i.test(error.message)) {
    return authRefused(server, 'its protected resource metadata names another resource', error);
  }
  return undefined;
}

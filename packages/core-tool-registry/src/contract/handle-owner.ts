import type { CallPrincipal, ToolContext } from './tool.js';

/**
 * A key naming one principal (`kind:id`): equal for the same caller, different across kinds. A
 * call without a principal (an executor embedded without one) is the local user.
 */
export function principalKey(principal: CallPrincipal | undefined): string {
  return principal === undefined ? 'local:local' : `${principal.kind}:${principal.id}`;
}

/**
 * Who a handle belongs to (a terminal session, a browser tab, a device session, a cursor, an
 * artifact): the principal whose call created it and the client session it was created in. Only
 * a call with both equal may use it; any other caller gets the answer of a handle that never
 * existed.
 */
export interface HandleOwner {
  /** {@link principalKey} of the creating call's principal. */
  readonly principal: string;
  /** The creating call's client session (`context.sessionId`); the handle ends with it. */
  readonly session: string;
}

/** The owner of a handle created by this call. */
export function handleOwnerOf(context: Pick<ToolContext, 'principal' | 'sessionId'>): HandleOwner {
  return { principal: principalKey(context.principal), session: context.sessionId };
}

/** Whether `caller` may use a handle that `owner` holds: same principal and same client session. */
export function isHandleOwner(owner: HandleOwner, caller: HandleOwner): boolean {
  return owner.principal === caller.principal && owner.session === caller.session;
}

/**
 * One string naming an owner, for maps keyed by owner; {@link isKeyOfSession} tells which keys a
 * client session's end releases. The separator cannot occur in a principal key or a session id.
 */
export function handleOwnerKey(owner: HandleOwner): string {
  return `${owner.session}\u0000${owner.principal}`;
}

/** Whether a {@link handleOwnerKey} belongs to the client session `sessionId`. */
export function isKeyOfSession(key: string, sessionId: string): boolean {
  return key.startsWith(`${sessionId}\u0000`);
}

/**
 * Whether `principal` may see and call `tool`: every caller for a tool nobody defined at run
 * time, else only the principal that defined it (`definedBy`).
 */
export function isToolVisibleTo(
  tool: { readonly definedBy?: string },
  principal: CallPrincipal | undefined,
): boolean {
  return tool.definedBy === undefined || tool.definedBy === principalKey(principal);
}

import type { ToolTraceSpan } from '@toolsys/core-tool-registry';
import type { ServedCall } from '../server/call-log.js';
import { type Principal, principalKey } from '../server/principal.js';

/** Who is looking at the dashboard, as the server identified them. */
export interface DashboardViewer {
  /** The signed-in principal: form calls run as it. */
  readonly principal: Principal;
  /**
   * True for an operator (the local user, a named token without scope limits, or a principal
   * holding the scope of HIGH tools): sees every caller's calls and the deployment's states.
   */
  readonly isOperator: boolean;
  /** The CSRF value the page sends with its POSTs, for a cookie sign-in. */
  readonly csrf?: string;
}

/** Whether the viewer may see this served call: their own, or any for an operator. */
export function seesCall(viewer: DashboardViewer, call: ServedCall): boolean {
  return viewer.isOperator || call.principal === principalKey(viewer.principal);
}

/**
 * Whether the viewer may see this trace span: their own (same id and same kind), or any for an
 * operator. A span without a principal is an operator's to see.
 */
export function seesSpan(viewer: DashboardViewer, span: ToolTraceSpan): boolean {
  return (
    viewer.isOperator ||
    (span.principal === viewer.principal.id && span.principalKind === viewer.principal.kind)
  );
}

/** The viewer as the page names them (`token:alice`). */
export function principalLabel(viewer: DashboardViewer): string {
  return principalKey(viewer.principal);
}

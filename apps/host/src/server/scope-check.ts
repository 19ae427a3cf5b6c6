// Which scope a `tools/call` needs that the caller's token lacks, and its audit line.
import type { ToolRisk } from '@toolsys/core-tool-registry';
import { ListedNames } from './listed-names.js';
import type { ScopeRules } from './oauth-resource.js';
import type { Principal } from './principal.js';
import type { ToolHost } from './tool-host.js';

/**
 * The scope the first `tools/call` of a message (or batch) needs and the principal lacks: the
 * scope of the called tool's risk for these arguments (through `tool_call`, the called tool's).
 */
export function missingScope(
  host: ToolHost,
  auth: ScopeRules,
  principal: Principal,
  message: unknown,
): ScopeRefusal | undefined {
  // A call may name a tool by its id or by the name it is listed under (`terminal_run`).
  let names: ListedNames | undefined;
  const toolOf = (name: string) => {
    const tool = host.deployment.registry.get(name, principal);
    if (tool) return tool;
    names ??= new ListedNames('safe', () => host.deployment.registry.ids(principal));
    return host.deployment.registry.get(names.idOf(name), principal);
  };
  for (const entry of Array.isArray(message) ? message : [message]) {
    const call = entry as { method?: unknown; params?: { name?: unknown; arguments?: unknown } };
    if (call?.method !== 'tools/call' || typeof call.params?.name !== 'string') continue;
    let toolId: string = call.params.name;
    let args = call.params.arguments;
    const inner = args as { id?: unknown; arguments?: unknown } | undefined;
    if (toolOf(toolId)?.id === 'tool_call' && typeof inner?.id === 'string') {
      toolId = inner.id;
      args = inner.arguments;
    }
    const tool = toolOf(toolId);
    if (!tool) continue;
    toolId = tool.id;
    let risk = tool.metadata.risk;
    try {
      risk = tool.riskOf?.(args) ?? risk;
    } catch {
      // Arguments the tool cannot judge are refused by its validation; the declared risk stands.
      risk = 'HIGH';
    }
    if (!auth.allows(principal.scopes, risk)) {
      return { scope: auth.scopeFor(risk), toolId, risk, args };
    }
  }
  return undefined;
}

/** A `tools/call` refused for a scope the caller's token lacks. */
export interface ScopeRefusal {
  /** The scope it needs. */
  readonly scope: string;
  readonly toolId: string;
  readonly risk: ToolRisk;
  /** Its arguments, for their digest only. */
  readonly args: unknown;
}

/** One audit line for a call refused with 403 insufficient_scope: it never reached the executor. */
export function auditScopeRefusal(
  host: ToolHost,
  principal: Principal,
  refusal: ScopeRefusal,
): void {
  const { audit, replicaId } = host.deployment.stack;
  audit?.append({
    time: new Date().toISOString(),
    principal: { id: principal.id, kind: principal.kind },
    ...(principal.clientId !== undefined ? { client: { id: principal.clientId } } : {}),
    tool: refusal.toolId,
    risk: refusal.risk,
    decision: 'denied',
    deniedBy: 'scope',
    outcome: 'INSUFFICIENT_SCOPE',
    durationMs: 0,
    ...(replicaId !== undefined ? { replica: replicaId } : {}),
    source: 'http',
    args: host.deployment.stack.digestArguments(refusal.args),
  });
}

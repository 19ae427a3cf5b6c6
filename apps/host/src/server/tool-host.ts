import {
  type ConfirmFunction,
  failureResult,
  type InputRequest,
  type InputResponse,
  ToolCallIds,
  type ToolEvent,
  type ToolExecutor,
  type ToolResult,
} from '@toolsys/core-tool-registry';
import { escapingConfirm } from '../confirmation-text.js';
import type { Deployment } from '../deployment.js';
import { HostTasks } from '../tasks/host-tasks.js';
import { CallLog } from './call-log.js';
import { runInCallScope, scopedConfirm } from './call-scope.js';
import { handleDigest } from './handle-digest.js';
import { LOCAL_PRINCIPAL, type Principal, principalKey } from './principal.js';
import type { RecentArtifacts } from './recent-artifacts.js';
import { createUsedStateIds, type UsedStateIds } from './used-state-ids.js';

/** The per-call confirm: the caller's own, every question escaped as the deployment's are. */
const ESCAPED_SCOPED_CONFIRM = escapingConfirm(scopedConfirm);

/** Per-call options of {@link ToolHost.call}. */
export interface HostCallOptions {
  /** Where the call came from. */
  source: 'mcp' | 'dashboard';
  /** The name the MCP client gave in its `clientInfo`, for the audit log. */
  clientName?: string;
  /** The caller's session: permission answers are remembered per session. */
  sessionId: string;
  /** Who is calling; reaches the tool as `context.principal` and the trace spans. Default `local`. */
  principal?: Principal;
  /** Cancels the call (client cancellation, closed connection). */
  signal?: AbortSignal;
  /** Receives progress and streamed output. */
  onEvent?: (event: ToolEvent) => void;
  /** Asks the caller's user; absent when the caller cannot ask. */
  confirm?: ConfirmFunction;
  /** Answers the tool's input requests (`context.requestInput`); absent when the caller cannot. */
  requestInput?: (request: InputRequest) => Promise<InputResponse>;
  /** The caller's W3C trace context (an MCP request's `_meta.traceparent` / `tracestate`). */
  traceContext?: { readonly traceparent?: string; readonly tracestate?: string };
}

/**
 * What the servers (MCP over stdio and HTTP, the dashboard) share: one deployment, a log of the
 * calls they served, and one way to run a call. The deployment must be composed with
 * {@link scopedConfirm} so that each call's confirmations reach its own caller.
 */
export class ToolHost {
  /** The composed deployment. */
  readonly deployment: Deployment;
  /** Calls served so far (bounded). */
  readonly calls: CallLog;
  /**
   * The artifacts its MCP servers linked in call results, the last 1,000: the only files of the
   * data directory `resources/read` serves (the deployment's, which its offerings read too).
   */
  readonly artifacts: RecentArtifacts;
  /**
   * The ids of the 2026-07-28 `requestState`s already brought back (in Redis when `state.redis`
   * is configured, so that no replica accepts one twice).
   */
  readonly usedStateIds: UsedStateIds;
  /** Where the servers report what an operator should know (an artifact that got no link). */
  readonly warn: (message: string) => void;
  /** Long calls run as MCP Tasks (opened on the first task). */
  readonly tasks: HostTasks;
  readonly #callIds = new ToolCallIds();

  constructor(
    deployment: Deployment,
    options: { calls?: CallLog; warn?: (message: string) => void } = {},
  ) {
    this.deployment = deployment;
    this.artifacts = deployment.artifacts;
    this.calls = options.calls ?? new CallLog();
    this.usedStateIds = createUsedStateIds(deployment.stack.scaleOut.sharedState);
    this.warn = options.warn ?? ((message) => process.stderr.write(`toolsys: ${message}\n`));
    this.tasks = new HostTasks({
      executor: this.#taskExecutor(),
      dataDir: deployment.config.dataDir,
      ...(deployment.stack.scaleOut.sharedState
        ? { sharedState: deployment.stack.scaleOut.sharedState }
        : {}),
    });
  }

  /** Stops the tasks this process runs and closes their store. */
  close(): Promise<void> {
    return this.tasks.close();
  }

  /**
   * The executor tasks run through: the deployment's, each call in a call scope of its own so
   * that its confirmations reach the task (which waits in `input_required`), not another caller.
   */
  #taskExecutor(): ToolExecutor {
    const { executor } = this.deployment;
    return {
      registry: executor.registry,
      execute: (toolId, args, options = {}) => {
        const scope = {
          ...(options.confirm ? { confirm: options.confirm } : {}),
          unanswered: false,
          source: 'mcp' as const,
        };
        const started = performance.now();
        return runInCallScope(scope, () =>
          executor.execute(toolId, args, { ...options, confirm: ESCAPED_SCOPED_CONFIRM }),
        ).then((result) => {
          this.calls.record({
            callId: options.callId ?? toolId,
            toolId,
            source: 'mcp',
            session: handleDigest(options.sessionId ?? 'default'),
            principal: principalKey(options.principal),
            outcome: result.ok ? 'ok' : result.error.code,
            durationMs: performance.now() - started,
            at: Date.now(),
          });
          return result;
        });
      },
    };
  }

  /**
   * Runs one call through the deployment's executor. A confirmation the caller cannot answer
   * ends the call with PERMISSION_DENIED and a hint that says how to allow the tool instead.
   */
  async call(toolId: string, args: unknown, options: HostCallOptions): Promise<ToolResult> {
    const scope = {
      ...(options.confirm ? { confirm: options.confirm } : {}),
      unanswered: false,
      source: options.source,
      ...(options.clientName !== undefined ? { clientName: options.clientName } : {}),
    };
    const callId = this.#callIds.next();
    const started = performance.now();
    const unbind = this.deployment.stack.bindTraceContext(callId, options.traceContext);
    let result = await runInCallScope(scope, () =>
      this.deployment.executor.execute(toolId, args, {
        sessionId: options.sessionId,
        principal: options.principal ?? LOCAL_PRINCIPAL,
        callId,
        confirm: ESCAPED_SCOPED_CONFIRM,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.onEvent ? { onEvent: options.onEvent } : {}),
        ...(options.requestInput ? { requestInput: options.requestInput } : {}),
      }),
    ).finally(unbind);
    if (scope.unanswered && !result.ok && result.error.code === 'PERMISSION_DENIED') {
      // Nobody was asked, so no denial is remembered for the session.
      this.deployment.permissions.beginTurn(options.sessionId);
      result = unanswerableFailure(toolId, options.source);
    }
    this.calls.record({
      callId,
      toolId,
      source: options.source,
      session: handleDigest(options.sessionId),
      principal: principalKey(options.principal),
      outcome: result.ok ? 'ok' : result.error.code,
      durationMs: performance.now() - started,
      at: Date.now(),
    });
    return result;
  }
}

function unanswerableFailure(toolId: string, source: HostCallOptions['source']): ToolResult {
  const who =
    source === 'mcp'
      ? 'this MCP client cannot ask the user (it does not support elicitation)'
      : 'nobody can answer a confirmation here';
  return failureResult(
    'PERMISSION_DENIED',
    `${toolId} needs the user's confirmation, but ${who}.`,
    {
      hint:
        source === 'dashboard'
          ? `Do not retry this way; call ${toolId} from the dashboard page, which asks the person at the form, or ask the user to allow ${toolId} in toolsys.config.json (permissions.alwaysAllow).`
          : `Do not retry; use a lower-risk tool, or ask the user to allow ${toolId} in toolsys.config.json (permissions.alwaysAllow) or to use a client that supports elicitation.`,
      details: { toolId, reason: 'confirmation_unavailable' },
    },
  );
}

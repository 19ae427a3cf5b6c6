import {
  type ConfirmationDecision,
  type ConfirmationRequest,
  type PipelineToolExecutor,
  RiskAwareToolGate,
  type RiskPolicy,
  ToolPermissionManager,
  type ToolRisk,
} from '@toolsys/core-tool-registry';
import { createTestExecutor, type TestExecutorOptions } from '@toolsys/core-tool-registry/testing';

/** Options of {@link gatedExecutor}: the test executor's, and the deployment's risk gate. */
export interface GatedExecutorOptions extends TestExecutorOptions {
  /** The deployment's risk policy. Default: the permission manager's default. */
  readonly policy?: Partial<Record<ToolRisk, RiskPolicy>>;
  /** What the user answers each question with. Default: no one can be asked. */
  readonly answer?: ConfirmationDecision | ((request: ConfirmationRequest) => ConfirmationDecision);
}

/**
 * An executor over the tools behind a deployment's risk gate (a real permission manager), as the
 * host builds it; every question the user is asked is recorded in `asked`, in order.
 */
export function gatedExecutor(options: GatedExecutorOptions = {}): {
  executor: PipelineToolExecutor;
  asked: ConfirmationRequest[];
} {
  const { answer, policy, ...executorOptions } = options;
  const asked: ConfirmationRequest[] = [];
  const confirm =
    answer === undefined
      ? undefined
      : async (request: ConfirmationRequest) => {
          asked.push(request);
          return typeof answer === 'function' ? answer(request) : answer;
        };
  const permissions = new ToolPermissionManager({
    ...(confirm ? { confirm } : {}),
    ...(policy ? { policy } : {}),
  });
  const executor = createTestExecutor({
    ...executorOptions,
    gate: new RiskAwareToolGate(permissions),
    ...(confirm ? { confirm } : {}),
  });
  return { executor, asked };
}

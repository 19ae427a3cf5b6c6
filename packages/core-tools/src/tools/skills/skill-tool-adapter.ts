import { randomBytes } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import type { ToolRegistry } from '@toolsys/core-tool-registry';
import {
  type AnyToolDefinition,
  defineTool,
  failureResult,
  principalKey,
  RunPolicies,
  successResult,
  type ToolContext,
  ToolError,
  ToolErrorCode,
  type ToolResult,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import {
  approvedEnvironment,
  buildSandboxArguments,
  classifyCommand,
  probeCommandSandbox,
  runProcess,
  type ShellPolicyOptions,
} from '@toolsys/platform';
import { principalOfKey } from '../defined-by.js';
import {
  renderCommand,
  type SkillManifest,
  type SkillToolSpec,
  shellQuote,
} from './skill-manifest.js';

/** Options for {@link SkillToolAdapter}. */
export interface SkillToolAdapterOptions {
  /** Registry the skill tools are added to and removed from. */
  registry: ToolRegistry;
  /** Directory the commands run in. */
  workspaceRoot: string;
  /** Variables added to the (allow-listed) environment of every skill command. */
  environment?: Readonly<Record<string, string>>;
  /** More server variables skill commands receive (see {@link approvedEnvironment}). Default none. */
  passEnvironment?: readonly string[];
  /** Shell permission chain options (extra allowed or denied commands). */
  shellPolicy?: ShellPolicyOptions;
  /** Bytes of stdout and stderr kept per run (head and tail); 64 KiB by default. */
  maxOutputBytes?: number;
}

/** The key of one principal's skill in the adapter's maps. */
function skillKey(skillName: string, definedBy: string): string {
  return `${definedBy}\u0000${skillName}`;
}

/** The owner name under which a skill's tools are registered. */
export function skillOwner(skillName: string): string {
  return `skill:${skillName}`;
}

/**
 * Turns the tools a skill declares into first-class tools in the registry. Each call goes
 * through the executor's full pipeline, then through the shell permission chain: the rendered
 * command is refused on the deny-list, runs at once when read-only (inside the command sandbox; without
 * one it asks), and otherwise asks the user
 * (an "allow for session" or "always" answer is remembered for that exact rendered command, for the
 * principal who gave it).
 */
export class SkillToolAdapter {
  readonly #options: SkillToolAdapterOptions;
  readonly #toolsBySkill = new Map<string, string[]>();
  readonly #allowedForSession = new Set<string>();
  readonly #allowedAlways = new Set<string>();

  constructor(options: SkillToolAdapterOptions) {
    this.#options = options;
  }

  /**
   * Tool ids of this skill of `definedBy` that would collide with a tool that principal already
   * sees (a shared tool, another of its skills); empty when the skill can be registered. Other
   * principals' tools never collide: they live in their own namespaces.
   */
  conflicts(manifest: SkillManifest, definedBy: string): string[] {
    const owner = skillOwner(manifest.name);
    const definer = principalOfKey(definedBy);
    return manifest.tools
      .map((tool) => tool.name)
      .filter((id) => {
        const existing = this.#options.registry.get(id, definer);
        return (
          existing !== undefined && (existing.owner !== owner || existing.definedBy !== definedBy)
        );
      });
  }

  /**
   * Registers `definedBy`'s skill's tools, seen by that principal only (replacing its earlier
   * ones). Throws PERMISSION_DENIED when a tool id is taken; nothing is registered then.
   */
  register(manifest: SkillManifest, skillDirectory: string, definedBy: string): string[] {
    const conflicts = this.conflicts(manifest, definedBy);
    if (conflicts.length > 0) {
      throw new ToolError(
        ToolErrorCode.PERMISSION_DENIED,
        `Skill "${manifest.name}" declares tool ids that already exist: ${conflicts.join(', ')}.`,
        { hint: 'Rename the tools in SKILL.md, or uninstall the skill that owns them.' },
      );
    }
    this.unregister(manifest.name, definedBy);
    const owner = skillOwner(manifest.name);
    const ids: string[] = [];
    for (const spec of manifest.tools) {
      this.#options.registry.register(
        this.#toToolDefinition(manifest.name, spec, skillDirectory, definedBy),
        { owner },
      );
      ids.push(spec.name);
    }
    this.#toolsBySkill.set(skillKey(manifest.name, definedBy), ids);
    return ids;
  }

  /** Removes `definedBy`'s skill's tools; returns the ids removed. */
  unregister(skillName: string, definedBy: string): string[] {
    const owner = skillOwner(skillName);
    const key = skillKey(skillName, definedBy);
    const definer = principalOfKey(definedBy);
    const removed: string[] = [];
    for (const id of this.#toolsBySkill.get(key) ?? []) {
      const registered = this.#options.registry.get(id, definer);
      if (
        registered?.owner === owner &&
        registered.definedBy === definedBy &&
        this.#options.registry.unregister(id, definedBy)
      ) {
        removed.push(id);
      }
    }
    this.#toolsBySkill.delete(key);
    return removed;
  }

  /** The tool ids registered for `definedBy`'s skill. */
  toolIds(skillName: string, definedBy: string): readonly string[] {
    return this.#toolsBySkill.get(skillKey(skillName, definedBy)) ?? [];
  }

  #toToolDefinition(
    skillName: string,
    spec: SkillToolSpec,
    skillDirectory: string,
    definedBy: string,
  ): AnyToolDefinition {
    return defineTool({
      id: spec.name,
      description: `${spec.description} (From skill "${skillName}"; runs a shell command.)`,
      inputSchema: ToolSchema.fromRendered(spec.inputSchema),
      metadata: {
        category: 'skill',
        risk: spec.risk,
        tags: ['skill', skillName],
        annotations: {
          readOnlyHint: spec.readOnly,
          destructiveHint: !spec.readOnly,
          idempotentHint: spec.readOnly,
          openWorldHint: true,
          sensitiveAction: spec.risk === 'HIGH',
        },
      },
      runPolicy: {
        ...RunPolicies.mutating,
        name: 'skill',
        timeoutMs: spec.timeoutMs + 5_000,
      },
      // New on every registration (its scripts may change with its SKILL.md unchanged): a grant
      // given before the skill was installed again never covers the new one.
      revision: randomBytes(8).toString('hex'),
      definedBy,
      execute: (args: Record<string, unknown>, context) =>
        this.#run(skillName, spec, skillDirectory, args, context),
    });
  }

  async #run(
    skillName: string,
    spec: SkillToolSpec,
    skillDirectory: string,
    args: Record<string, unknown>,
    context: ToolContext,
  ): Promise<ToolResult> {
    const { workspaceRoot } = this.#options;
    const values = { ...args, skill_dir: skillDirectory, workspace: workspaceRoot };
    const command = renderCommand(spec.command, values);
    const root = await realpath(workspaceRoot).catch(() => workspaceRoot);
    let verdict = await classifyCommand(command, {
      ...this.#options.shellPolicy,
      workspaceRoot: root,
      cwd: root,
    });
    // As for shell_execute, a command runs unasked only inside the sandbox, which shows the
    // workspace and the skill's own folder read-only and nothing else of the machine.
    let sandbox: { executable: string; arguments: string[] } | undefined;
    if (verdict.kind === 'allow') {
      const status = await probeCommandSandbox();
      if (status.available && status.executable !== undefined) {
        sandbox = {
          executable: status.executable,
          arguments: await buildSandboxArguments({
            workspaceRoot: root,
            cwd: root,
            executable: status.executable,
            readOnlyPaths: [await realpath(skillDirectory).catch(() => skillDirectory)],
            // The host's variables stay outside; the skill's own configured ones pass.
            environment: Object.fromEntries(
              Object.entries(process.env).filter(
                ([name]) => !(name in (this.#options.environment ?? {})),
              ),
            ),
          }),
        };
      } else {
        verdict = {
          kind: 'confirm',
          reason: `${verdict.reason}, but no OS sandbox is available to run it unasked: ${status.reason}`,
        };
      }
    }
    if (verdict.kind === 'deny') {
      return failureResult(
        ToolErrorCode.PERMISSION_DENIED,
        `${spec.name} was refused: its command is on the shell deny-list (${verdict.reason}).`,
        { hint: 'Change the arguments or approach; do not retry this call.' },
      );
    }
    // Grants are the answering principal's own: another user's answer never runs a command here.
    const caller = principalKey(context.principal);
    if (
      verdict.kind === 'confirm' &&
      !this.#isRemembered(caller, context.sessionId, spec.name, command)
    ) {
      const decision = await context.confirm({
        action: `${spec.name} (skill "${skillName}") runs: ${shortenForPrompt(command, skillDirectory, workspaceRoot)}`,
        risk: spec.risk,
        reason: `A skill command needs approval: ${verdict.reason}.`,
      });
      if (decision === 'deny') {
        return failureResult(
          ToolErrorCode.PERMISSION_DENIED,
          `The user did not approve running ${spec.name}.`,
          { hint: 'Do not retry this call; ask the user or use another approach.' },
        );
      }
      // A grant covers the exact command the user saw, as shell_execute's do: a call that renders
      // another command (another `{{script}}`) is asked again.
      if (decision === 'allow_session') {
        this.#allowedForSession.add(
          `${caller}\u0000${context.sessionId}\u0000${spec.name}\u0000${command}`,
        );
      }
      if (decision === 'allow_always') {
        this.#allowedAlways.add(`${caller}\u0000${spec.name}\u0000${command}`);
      }
    }
    const outcome = await runProcess({
      command,
      cwd: workspaceRoot,
      env: {
        ...approvedEnvironment(process.env, { pass: this.#options.passEnvironment ?? [] }),
        ...this.#options.environment,
        SKILL_DIR: skillDirectory,
      },
      timeoutMs: spec.timeoutMs,
      signal: context.signal,
      maxOutputBytes: this.#options.maxOutputBytes ?? 64 * 1024,
      onOutput: (stream, text) => context.emit({ type: 'output', stream, text }),
      ...(sandbox === undefined ? {} : { sandbox }),
    });
    if (outcome.aborted) throw context.signal.reason ?? new Error('cancelled');
    const stdout = outcome.stdout.text.trimEnd();
    const stderr = outcome.stderr.text.trimEnd();
    const data = {
      exitCode: outcome.exitCode,
      stdout,
      stderr,
      truncated: outcome.stdout.truncated || outcome.stderr.truncated,
    };
    if (outcome.timedOut) {
      return failureResult(
        ToolErrorCode.TIMEOUT,
        `${spec.name} did not finish within ${spec.timeoutMs} ms and was stopped.`,
        { hint: 'Retry with a smaller request.', details: data },
      );
    }
    if (outcome.exitCode !== 0) {
      const reason = (stderr || stdout).split('\n').slice(-5).join('\n');
      return failureResult(
        ToolErrorCode.EXECUTION_FAILED,
        `${spec.name} failed (exit code ${outcome.exitCode ?? outcome.signal})${reason ? `: ${reason}` : '.'}`,
        {
          retryable: false,
          hint: 'Read the error, fix the arguments and retry once.',
          details: data,
        },
      );
    }
    return successResult(stdout === '' ? `${spec.name} finished (no output).` : stdout, { data });
  }

  #isRemembered(caller: string, sessionId: string, toolId: string, command: string): boolean {
    return (
      this.#allowedAlways.has(`${caller}\u0000${toolId}\u0000${command}`) ||
      this.#allowedForSession.has(`${caller}\u0000${sessionId}\u0000${toolId}\u0000${command}`)
    );
  }
}

/** Confirmation prompts show `$SKILL_DIR` rather than the data directory's host path. */
function shortenForPrompt(command: string, skillDirectory: string, workspaceRoot: string): string {
  return command
    .split(shellQuote(skillDirectory))
    .join('"$SKILL_DIR"')
    .split(shellQuote(workspaceRoot))
    .join('.');
}

import {
  type AnyToolDefinition,
  defineTool,
  failureResult,
  RunPolicies,
  successResult,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import type { RootfsManager } from '../../rootfs-manager.js';
import { clipMiddle, formatMs, outputBlock, showOutput, showOutputLine } from '../tool-support.js';
import { isRunResult, runInRootfs } from './shared.js';

const PACKAGE_TIMEOUT_MS = 110_000;

const PACKAGE_NAME = /^[a-z0-9][a-z0-9+.-]{0,99}$/;

/** The `terminal.linux_packages` tool. */
export function createLinuxPackagesTool(rootfs: RootfsManager): AnyToolDefinition {
  return defineTool({
    id: 'terminal.linux_packages',
    description: 'Lists, installs or removes Debian packages in the rootfs.',
    inputSchema: ToolSchema.object({
      action: z.enum(['list', 'install', 'remove']).describe('Action.'),
      packages: z
        .array(z.string().min(1).max(100))
        .max(50)
        .default([])
        .describe('Names, or list filters.'),
    }),
    outputSchema: ToolSchema.object({
      action: z.string(),
      exitCode: z.number().nullable(),
      packages: z.array(z.object({ name: z.string(), version: z.string() })).optional(),
      output: z.string().optional(),
    }),
    metadata: {
      category: 'terminal',
      risk: 'MEDIUM',
      tags: ['rootfs', 'apt'],
      annotations: {
        ...ToolHints.mutating,
        idempotentHint: true,
        openWorldHint: true,
        sensitiveAction: true,
      },
      // Calls can take minutes: a client that supports tasks may run one as a task.
      taskSupport: 'optional',
    },
    runPolicy: { ...RunPolicies.mutating, timeoutMs: PACKAGE_TIMEOUT_MS + 15_000 },
    async execute({ action, packages }, context) {
      for (const [index, name] of packages.entries()) {
        if (action !== 'list' && !PACKAGE_NAME.test(name)) {
          return failureResult(
            ToolErrorCode.INVALID_ARGUMENT,
            `packages.${index}: "${name}" is not a Debian package name`,
            {
              field: `packages.${index}`,
              hint: 'Package names are lower-case letters, digits and + . - (e.g. "python3-venv").',
            },
          );
        }
      }
      if (action !== 'list' && packages.length === 0) {
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          `packages: give at least one package to ${action}`,
          {
            field: 'packages',
            hint: 'Send {"action": "install", "packages": ["curl"]}.',
          },
        );
      }
      const argv =
        action === 'list'
          ? // dpkg-query's own format placeholders, not JavaScript ones.
            // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query format.
            ['dpkg-query', '-W', '-f', '${Package}\\t${Version}\\n']
          : [
              '/bin/sh',
              '-c',
              action === 'install'
                ? 'apt-get -o APT::Sandbox::User=root update -qq && apt-get -o APT::Sandbox::User=root install -y -qq --no-install-recommends "$@"'
                : 'apt-get -o APT::Sandbox::User=root remove -y -qq "$@"',
              'apt',
              ...packages,
            ];
      const result = await runInRootfs(rootfs, argv, PACKAGE_TIMEOUT_MS, context);
      if (!isRunResult(result)) return result;
      if (result.timedOut) {
        return failureResult(
          ToolErrorCode.TIMEOUT,
          `${action} did not finish within ${formatMs(PACKAGE_TIMEOUT_MS)} and was stopped`,
          {
            retryable: false,
            hint: 'Install fewer packages per call; apt resumes where it stopped.',
          },
        );
      }
      if (action === 'list' && result.exitCode !== 0) {
        return failureResult(
          ToolErrorCode.EXECUTION_FAILED,
          `dpkg-query failed in the rootfs (exit ${result.exitCode}): ${showOutputLine(clipMiddle(result.stderr.trim(), 500).text)}`,
          {
            retryable: false,
            hint: 'This rootfs has no working dpkg; rebuild it with terminal.linux_bootstrap (a Debian rootfs).',
          },
        );
      }
      if (action === 'list') {
        const all = result.stdout
          .split('\n')
          .filter((line) => line.includes('\t'))
          .map((line) => {
            const [name = '', version = ''] = line.split('\t');
            return { name, version };
          });
        const filtered =
          packages.length === 0
            ? all
            : all.filter((entry) => packages.some((part) => entry.name.includes(part)));
        const shown = clipMiddle(
          filtered
            .map((entry) => `${showOutputLine(entry.name)} ${showOutputLine(entry.version)}`)
            .join('\n'),
          8_000,
        );
        return successResult(
          `${filtered.length} package(s) installed in the rootfs${packages.length > 0 ? ' matching the filter' : ''}:\n${outputBlock(shown.text)}`,
          {
            data: {
              action,
              exitCode: result.exitCode,
              packages: filtered.map((entry) => ({
                name: showOutputLine(entry.name),
                version: showOutputLine(entry.version),
              })),
            },
          },
        );
      }
      const output = clipMiddle(showOutput(`${result.stdout}${result.stderr}`.trim()), 6_000).text;
      if (result.exitCode !== 0) {
        return failureResult(
          ToolErrorCode.EXECUTION_FAILED,
          `apt-get ${action} failed (exit ${result.exitCode}):\n${outputBlock(output)}`,
          {
            retryable: false,
            hint: 'Check the package names (terminal.linux_packages "list") and that the mirror is reachable (terminal.linux_network).',
          },
        );
      }
      return successResult(
        `${action === 'install' ? 'Installed' : 'Removed'} ${packages.join(', ')} in the rootfs.\n${outputBlock(output)}`,
        {
          data: { action, exitCode: result.exitCode, output },
        },
      );
    },
  });
}

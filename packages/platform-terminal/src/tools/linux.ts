import {
  type AnyToolDefinition,
  defineTool,
  failureResult,
  RunPolicies,
  successResult,
  type ToolContext,
  ToolErrorCode,
  ToolHints,
  type ToolMetadataInput,
  type ToolReturn,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import {
  type RootfsFlavor,
  type RootfsManager,
  type RootfsStatus,
  RootfsUnavailableError,
} from '../rootfs-manager.js';
import { clipMiddle, formatMs, outputBlock, showOutput, showOutputLine } from './tool-support.js';

/** Options for {@link createLinuxTools}. */
export interface LinuxToolsOptions {
  /** The rootfs builder and runner. */
  readonly rootfs: RootfsManager;
}

const PACKAGE_TIMEOUT_MS = 110_000;
const NETWORK_TIMEOUT_MS = 20_000;
const PACKAGE_NAME = /^[a-z0-9][a-z0-9+.-]{0,99}$/;

const READ_ONLY: ToolMetadataInput = {
  category: 'terminal',
  risk: 'LOW',
  tags: ['rootfs', 'proot'],
  annotations: ToolHints.readOnly,
};

const statusSchema = ToolSchema.object({
  flavor: z.string(),
  state: z.enum(['absent', 'bootstrapping', 'ready', 'failed']),
  suite: z.string(),
  mirror: z.string().nullable(),
  phase: z.string().nullable(),
  exitCode: z.number().nullable(),
  logTail: z.array(z.string()),
  osName: z.string().nullable(),
});

/**
 * `terminal.linux_bootstrap`, `terminal.linux_status`, `terminal.linux_packages`,
 * `terminal.linux_network`, `terminal.ubuntu_install`, `terminal.ubuntu.ensure` and
 * `terminal.ubuntu.status`.
 */
export function createLinuxTools(options: LinuxToolsOptions): AnyToolDefinition[] {
  const { rootfs } = options;
  return [
    bootstrapTool(rootfs, {
      id: 'terminal.linux_bootstrap',
      flavor: 'debian',
      description:
        'Builds a Debian root filesystem (debootstrap, minbase variant, from the configured suite and mirror) under the data directory, as a background job, so that terminal.create with backend "proot" and terminal.linux_packages can use it without root on the host. Returns at once; follow progress with terminal.linux_status (a build takes about half a minute to a few minutes). Does nothing when the rootfs is ready; a failed build resumes.',
      risk: 'HIGH',
    }),
    statusTool(rootfs, {
      id: 'terminal.linux_status',
      flavor: 'debian',
      description:
        'Says whether the Debian rootfs is absent, bootstrapping (with the current debootstrap step and log tail), ready (with its OS name) or failed (with the log tail and what to do). Poll it after terminal.linux_bootstrap.',
    }),
    packagesTool(rootfs),
    networkTool(rootfs),
    bootstrapTool(rootfs, {
      id: 'terminal.ubuntu_install',
      flavor: 'ubuntu',
      description:
        'Builds an Ubuntu root filesystem (debootstrap from the configured Ubuntu suite and mirror) under the data directory as a background job; follow it with terminal.ubuntu.status. Needs an Ubuntu mirror in the configuration (ubuntuMirror) and the Ubuntu archive keyring on the host: without them it says exactly what is missing instead of pretending. Use terminal.ubuntu.ensure to only build when absent.',
      risk: 'HIGH',
    }),
    bootstrapTool(rootfs, {
      id: 'terminal.ubuntu.ensure',
      flavor: 'ubuntu',
      description:
        'Makes sure an Ubuntu rootfs exists: answers at once when it is ready, otherwise starts (or reports) its background build like terminal.ubuntu_install. Needs an Ubuntu mirror in the configuration (ubuntuMirror); without one it says so plainly.',
      risk: 'HIGH',
    }),
    statusTool(rootfs, {
      id: 'terminal.ubuntu.status',
      flavor: 'ubuntu',
      description:
        'Says whether the Ubuntu rootfs is absent, bootstrapping, ready or failed, with the configured suite and mirror (or that no mirror is configured) and the build log tail.',
    }),
  ];
}

/**
 * A status as the model is shown it: the OS name (from the rootfs's os-release), the debootstrap
 * step and the log lines (which quote the mirror) each as one line of outside text.
 */
function shownStatus(status: RootfsStatus): RootfsStatus {
  return {
    ...status,
    osName: status.osName === null ? null : showOutputLine(status.osName),
    phase: status.phase === null ? null : showOutputLine(status.phase),
    logTail: status.logTail.map((line) => showOutputLine(line)),
  };
}

function describeStatus(status: RootfsStatus, toolPrefix: string): string {
  const name = status.flavor === 'ubuntu' ? 'Ubuntu' : 'Debian';
  switch (status.state) {
    case 'ready':
      return `The ${name} rootfs (${status.osName ?? status.suite}) is ready. Open a shell in it with terminal.create {"backend": "proot"}.`;
    case 'bootstrapping':
      return `The ${name} ${status.suite} rootfs is being built${status.phase ? `: ${status.phase}` : ''}. Check again with ${toolPrefix}status in a few seconds.`;
    case 'failed':
      return `The ${name} ${status.suite} rootfs build failed${status.exitCode === null ? '' : ` (debootstrap exit ${status.exitCode})`}. Last log lines:\n${status.logTail.join('\n')}\nFix the cause (mirror reachable? disk space?) and call the bootstrap tool again: it resumes.`;
    case 'absent':
      return status.mirror === null
        ? `No ${name} rootfs, and no ${name} mirror is configured (set ${status.flavor}Mirror in the platform-terminal config).`
        : `No ${name} rootfs yet. Build one (${status.suite} from ${status.mirror}) with ${status.flavor === 'ubuntu' ? 'terminal.ubuntu.ensure' : 'terminal.linux_bootstrap'}.`;
  }
}

function statusData(status: RootfsStatus): Record<string, unknown> {
  return {
    flavor: status.flavor,
    state: status.state,
    suite: status.suite,
    mirror: status.mirror,
    phase: status.phase,
    exitCode: status.exitCode,
    logTail: status.logTail,
    osName: status.osName,
  };
}

function bootstrapTool(
  rootfs: RootfsManager,
  spec: { id: string; flavor: RootfsFlavor; description: string; risk: 'HIGH' },
): AnyToolDefinition {
  return defineTool({
    id: spec.id,
    description: spec.description,
    inputSchema: ToolSchema.object({}),
    outputSchema: statusSchema,
    metadata: {
      category: 'terminal',
      risk: spec.risk,
      tags: ['rootfs', 'debootstrap'],
      annotations: {
        ...ToolHints.mutating,
        destructiveHint: spec.id !== 'terminal.ubuntu.ensure',
        idempotentHint: true,
        openWorldHint: true,
        sensitiveAction: true,
      },
    },
    runPolicy: { ...RunPolicies.mutating, timeoutMs: 30_000 },
    async execute() {
      const prefix = spec.flavor === 'ubuntu' ? 'terminal.ubuntu.' : 'terminal.linux_';
      let outcome: 'started' | 'running' | 'ready';
      try {
        outcome = await rootfs.bootstrap(spec.flavor);
      } catch (error) {
        if (error instanceof RootfsUnavailableError) {
          return failureResult(ToolErrorCode.UNSUPPORTED, error.message, { hint: error.hint });
        }
        throw error;
      }
      const status = shownStatus(await rootfs.status(spec.flavor));
      const lead =
        outcome === 'started'
          ? `Started building the ${spec.flavor === 'ubuntu' ? 'Ubuntu' : 'Debian'} ${status.suite} rootfs in the background.`
          : outcome === 'running'
            ? 'A build is already running.'
            : 'Nothing to do.';
      return successResult(`${lead} ${describeStatus(status, prefix)}`, {
        data: statusData(status),
      });
    },
  });
}

function statusTool(
  rootfs: RootfsManager,
  spec: { id: string; flavor: RootfsFlavor; description: string },
): AnyToolDefinition {
  return defineTool({
    id: spec.id,
    description: spec.description,
    inputSchema: ToolSchema.object({}),
    outputSchema: statusSchema,
    metadata: READ_ONLY,
    runPolicy: RunPolicies.quickRead,
    async execute() {
      const status = shownStatus(await rootfs.status(spec.flavor));
      const prefix = spec.flavor === 'ubuntu' ? 'terminal.ubuntu.' : 'terminal.linux_';
      return successResult(describeStatus(status, prefix), { data: statusData(status) });
    },
  });
}

/** Runs `argv` in the Debian rootfs, or explains why it cannot. */
async function runInRootfs(
  rootfs: RootfsManager,
  argv: string[],
  timeoutMs: number,
  context: ToolContext,
): Promise<
  | { ok: true; exitCode: number | null; stdout: string; stderr: string; timedOut: boolean }
  | ToolReturn
> {
  if (!(await rootfs.isReady('debian'))) {
    const status = await rootfs.status('debian');
    return failureResult(
      ToolErrorCode.UNSUPPORTED,
      `the Debian rootfs is not ready (${status.state})`,
      {
        hint:
          status.state === 'bootstrapping'
            ? 'Wait for the build: poll terminal.linux_status.'
            : 'Build it with terminal.linux_bootstrap, then poll terminal.linux_status until it is ready.',
      },
    );
  }
  try {
    const result = await rootfs.run('debian', argv, { timeoutMs, signal: context.signal });
    return { ok: true, ...result };
  } catch (error) {
    if (error instanceof RootfsUnavailableError) {
      return failureResult(ToolErrorCode.UNSUPPORTED, error.message, { hint: error.hint });
    }
    throw error;
  }
}

function isRunResult(value: unknown): value is {
  ok: true;
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
} {
  return typeof value === 'object' && value !== null && 'stdout' in value;
}

function packagesTool(rootfs: RootfsManager): AnyToolDefinition {
  return defineTool({
    id: 'terminal.linux_packages',
    description:
      'Lists, installs or removes Debian packages inside the rootfs (dpkg-query / apt-get under proot; the host is not touched). "list" takes an optional name filter; "install" and "remove" take package names. Installing needs the mirror to be reachable (check with terminal.linux_network). Bounded to about 110 s per call: install large sets in several calls.',
    inputSchema: ToolSchema.object({
      action: z.enum(['list', 'install', 'remove']).describe('What to do.'),
      packages: z
        .array(z.string().min(1).max(100))
        .max(50)
        .default([])
        .describe(
          '"install"/"remove": Debian package names (e.g. ["curl", "git"]). "list": optional substrings to filter by.',
        ),
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

function networkTool(rootfs: RootfsManager): AnyToolDefinition {
  return defineTool({
    id: 'terminal.linux_network',
    description:
      'Checks the network from inside the Debian rootfs: the resolver configuration, whether a host name resolves, and whether a TCP port on it can be reached. Use it before terminal.linux_packages "install" or when a command in a proot session cannot download.',
    inputSchema: ToolSchema.object({
      host: z
        .string()
        .min(1)
        .max(253)
        .regex(/^[A-Za-z0-9.-]+$/, 'a host name or IPv4 address')
        .default('deb.debian.org')
        .describe('Host to resolve and reach. Default deb.debian.org.'),
      port: z
        .number()
        .int()
        .min(1)
        .max(65_535)
        .default(80)
        .describe('TCP port to try. Default 80.'),
    }),
    outputSchema: ToolSchema.object({
      resolvers: z.array(z.string()),
      addresses: z.array(z.string()),
      reachable: z.boolean(),
    }),
    metadata: {
      category: 'terminal',
      risk: 'MEDIUM',
      tags: ['rootfs', 'network'],
      annotations: { ...ToolHints.readOnly, openWorldHint: true },
    },
    runPolicy: { ...RunPolicies.network, maxRetries: 0, timeoutMs: NETWORK_TIMEOUT_MS + 10_000 },
    async execute({ host, port }, context) {
      const script = [
        'echo "@resolv"; grep "^nameserver" /etc/resolv.conf 2>/dev/null',
        'echo "@hosts"; getent ahostsv4 "$1" 2>/dev/null | cut -d" " -f1 | sort -u',
        'echo "@reach"; if timeout 5 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null; then echo yes; else echo no; fi',
      ].join('; ');
      const result = await runInRootfs(
        rootfs,
        ['/bin/sh', '-c', script, 'net', host, String(port)],
        NETWORK_TIMEOUT_MS,
        context,
      );
      if (!isRunResult(result)) return result;
      const sections = parseSections(result.stdout);
      const resolvers = (sections.get('resolv') ?? []).map((line) =>
        showOutputLine(line.replace(/^nameserver\s+/, '')),
      );
      const addresses = (sections.get('hosts') ?? []).map((line) => showOutputLine(line));
      const reachable = (sections.get('reach') ?? [])[0] === 'yes';
      const data = { resolvers, addresses, reachable };
      return successResult(
        `Inside the rootfs: resolvers ${resolvers.length > 0 ? resolvers.join(', ') : 'none configured'}; ${host} ${addresses.length > 0 ? `resolves to ${addresses.join(', ')}` : 'does not resolve'}; TCP ${host}:${port} ${reachable ? 'reachable' : 'not reachable'}.${reachable ? '' : ' Downloads from there will fail: use a mirror this machine can reach.'}`,
        { data },
      );
    },
  });
}

function parseSections(text: string): Map<string, string[]> {
  const sections = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('@')) {
      current = [];
      sections.set(line.slice(1).trim(), current);
    } else if (line.trim() !== '' && current !== undefined) {
      current.push(line.trim());
    }
  }
  return sections;
}

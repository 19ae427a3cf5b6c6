import {
  type AnyToolDefinition,
  defineTool,
  RunPolicies,
  successResult,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import type { RootfsManager } from '../../rootfs-manager.js';
import { showOutputLine } from '../tool-support.js';
import { isRunResult, runInRootfs } from './shared.js';

const NETWORK_TIMEOUT_MS = 20_000;

/** The `terminal.linux_network` tool. */
export function createLinuxNetworkTool(rootfs: RootfsManager): AnyToolDefinition {
  return defineTool({
    id: 'terminal.linux_network',
    description: 'Checks DNS and a TCP port from inside the Debian rootfs.',
    inputSchema: ToolSchema.object({
      host: z
        .string()
        .min(1)
        .max(253)
        .regex(/^[A-Za-z0-9.-]+$/, 'a host name or IPv4 address')
        .default('deb.debian.org')
        .describe('Host to reach.'),
      port: z.number().int().min(1).max(65_535).default(80).describe('TCP port.'),
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

import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeServerApproval } from './server-approval-text.js';

let root: string;
let hostBin: string;
let repoBin: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'toolsys-approval-text-'));
  hostBin = join(root, 'host-bin');
  repoBin = join(root, 'repo', '.devtools');
  mkdirSync(hostBin, { recursive: true });
  mkdirSync(repoBin, { recursive: true });
  for (const file of [join(hostBin, 'tool'), join(repoBin, 'tool')]) {
    writeFileSync(file, '#!/bin/sh\n');
    chmodSync(file, 0o755);
  }
  // Found on the PATH but not executable: skipped, as a spawned child skips it.
  writeFileSync(join(repoBin, 'plain'), 'x');
  symlinkSync(join(hostBin, 'tool'), join(hostBin, 'alias'));
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('describeServerApproval', () => {
  it("names a program found through the server's own PATH inside the workspace", async () => {
    const text = await describeServerApproval(
      {
        name: 's',
        transport: 'stdio',
        command: 'tool',
        args: ['--x'],
        env: { PATH: `${repoBin}:${hostBin}`, API_TOKEN: 'sk-1', LD_PRELOAD: 'a.so', MODE: 'on' },
        cwd: root,
      },
      { hostPath: hostBin, workspaceRoot: join(root, 'repo') },
    );
    expect(text).toBe(
      [
        '"tool" "--x"',
        `runs: "${join(repoBin, 'tool')}" (not the host's own "tool" ("${join(hostBin, 'tool')}"): found through the server's environment PATH; inside the workspace: a program the repository itself carries)`,
        `environment "PATH": "${repoBin}:${hostBin}" (changes what runs)`,
        'environment "API_TOKEN": [redacted]',
        'environment "LD_PRELOAD": "a.so" (changes what runs)',
        'environment "MODE": "on"',
        `working directory: "${root}"`,
      ].join('\n'),
    );
  });

  it('shows where a link leads, and says when the program is not found', async () => {
    const linked = await describeServerApproval(
      { name: 's', transport: 'stdio', command: 'alias' },
      { hostPath: hostBin },
    );
    expect(linked).toBe(
      `"alias"\nruns: "${join(hostBin, 'alias')}" (a link to "${join(hostBin, 'tool')}")`,
    );
    const missing = await describeServerApproval(
      { name: 's', transport: 'stdio', command: 'plain', env: { PATH: repoBin } },
      { hostPath: hostBin },
    );
    expect(missing).toBe(
      `"plain"\nruns: "plain", not found on the PATH the server gets (it will fail to start)\nenvironment "PATH": "${repoBin}" (changes what runs)`,
    );
  });

  it('shows a URL without its password, and every header name', async () => {
    expect(
      await describeServerApproval({
        name: 'h',
        transport: 'http',
        url: 'http://user:pw@127.0.0.1:9/mcp',
        headers: { 'X-Key': 'v' },
      }),
    ).toBe('http http://user:***@127.0.0.1:9/mcp\nheaders: X-Key');
  });
});

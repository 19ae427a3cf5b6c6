import { spawnSync } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { writeShellInit } from './shell-init.js';
import { newMarkKey } from './shell-marks.js';

describe('writeShellInit', () => {
  it('keeps the mark key out of the arguments and the environment, in a private file', async () => {
    const markKey = newMarkKey();
    for (const shellName of ['bash', 'dash', 'zsh']) {
      const init = await writeShellInit({
        shellName,
        integration: shellName === 'bash' ? 'bash' : 'prompt',
        markKey,
        place: { kind: 'local' },
      });
      try {
        expect(JSON.stringify([init.args, init.env])).not.toContain(markKey.slice(1));
        const file =
          shellName === 'bash'
            ? (init.args[init.args.indexOf('--rcfile') + 1] as string)
            : shellName === 'zsh'
              ? `${init.env.ZDOTDIR}/.zshenv`
              : (init.env.ENV as string);
        expect((await stat(file)).mode & 0o777).toBe(0o600);
        expect(await readFile(file, 'utf8')).toContain(markKey);
      } finally {
        await init.dispose();
      }
    }
  });

  it('bash reads the settings as unexported variables and empties the file before its first prompt', async () => {
    const markKey = newMarkKey();
    const init = await writeShellInit({
      shellName: 'bash',
      integration: 'bash',
      markKey,
      place: { kind: 'local' },
    });
    try {
      const file = init.args[init.args.indexOf('--rcfile') + 1] as string;
      const shell = spawnSync('bash', init.args, {
        input: `echo "ps0:\${#PS0} exported:$(env | grep -c 6973) file:$(wc -c < '${file}')"\nexit\n`,
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      });
      expect(shell.stdout).toContain(`ps0:${markKey.length + 11} exported:0 file:0`);
    } finally {
      await init.dispose();
    }
  });

  it('a shell without integration gets no file', async () => {
    const init = await writeShellInit({
      shellName: 'ksh',
      integration: 'none',
      markKey: newMarkKey(),
      place: { kind: 'local' },
    });
    expect(init).toMatchObject({ args: ['-i'], env: {}, sandboxArguments: [] });
  });
});

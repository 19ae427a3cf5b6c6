#!/usr/bin/env node
import { runCli } from './cli-main.js';

// A reader that stops early (`toolsys list | head`) closes the pipe: that is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
}

const code = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  interactive: Boolean(process.stdin.isTTY && process.stderr.isTTY),
  columns: process.stdout.columns,
});
process.exitCode = code;

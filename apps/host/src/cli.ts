#!/usr/bin/env node
import { runCli } from './cli-main.js';

const code = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  interactive: Boolean(process.stdin.isTTY && process.stderr.isTTY),
  columns: process.stdout.columns,
});
process.exitCode = code;

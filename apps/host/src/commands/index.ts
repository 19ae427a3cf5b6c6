import { callCommand } from './call.js';
import { describeCommand } from './describe.js';
import { doctorCommand } from './doctor.js';
import { listCommand } from './list.js';
import { serveCommand } from './serve.js';
import { traceCommand } from './trace.js';
import type { CliCommand } from './types.js';

/** Every `toolsys` sub-command, in help order. */
export const COMMANDS: readonly CliCommand[] = [
  listCommand,
  describeCommand,
  callCommand,
  serveCommand,
  doctorCommand,
  traceCommand,
];

import { collectTools, reportGate } from './collect.js';

process.exitCode = reportGate(await collectTools(), process.stdout, process.stderr);

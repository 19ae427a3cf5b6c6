import { collectToolIds, reportGate } from './collect.js';

process.exitCode = reportGate(await collectToolIds(), process.stdout, process.stderr);

import { readFileSync } from 'node:fs';

/** The host version (its package.json's), announced to MCP clients and printed by `--version`. */
export const HOST_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** The directory the user invoked toolsys from (pnpm scripts run in the workspace root). */
export function invocationDirectory(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.INIT_CWD ?? process.cwd());
}

/** Where the host keeps state: `TOOLSYS_DATA_DIR`, else `$XDG_DATA_HOME/toolsys`, else `~/.local/share/toolsys`. */
export function defaultDataDirectory(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TOOLSYS_DATA_DIR) return resolve(env.TOOLSYS_DATA_DIR);
  const base = env.XDG_DATA_HOME ? resolve(env.XDG_DATA_HOME) : join(homedir(), '.local', 'share');
  return join(base, 'toolsys');
}

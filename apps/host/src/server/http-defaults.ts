/** The default address of `toolsys serve --http`. */
export const DEFAULT_HTTP_HOST = '127.0.0.1';

/** The default port of `toolsys serve --http`. */
export const DEFAULT_HTTP_PORT = 7821;

/** The path of the MCP endpoint. */
export const MCP_PATH = '/mcp';

/** The default cap on open MCP sessions of `toolsys serve --http`. */
export const DEFAULT_MAX_SESSIONS = 100;

export { DEFAULT_SESSION_IDLE_MS } from '../session-policy.js';

import { type ChildProcess, spawn } from 'node:child_process';
import { initializeRequest } from '@toolsys/test-support';

/** Longest an MCP stdio server may take to answer `initialize` and `tools/list`, in ms. */
const LIST_TIMEOUT_MS = 120_000;

/** Where and how to spawn an MCP stdio server. */
export interface StdioServerSpawn {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

/** The raw `tools/list` answer of a server, as the client read it off the wire. */
export interface RawToolList {
  /** The `result` object of the `tools/list` response, exactly as sent. */
  readonly result: { tools: Record<string, unknown>[] } & Record<string, unknown>;
  /** Milliseconds from spawn to the `initialize` answer. */
  readonly initializeMs: number;
  /** Milliseconds from spawn to the `tools/list` answer. */
  readonly toolsListMs: number;
}

/** Ends a child: stdin closed first (an MCP server's normal end), then SIGKILL by its pid. */
export async function stopStdioServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stdin?.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Spawns an MCP stdio server, sends `initialize` (as `clientName`), then `tools/list`, and
 * resolves with the raw `tools/list` result and when each answer came; the server is stopped
 * before it resolves.
 */
export async function listToolsOverStdio(
  server: StdioServerSpawn,
  clientName: string,
): Promise<RawToolList> {
  const started = performance.now();
  const child = spawn(server.command, [...server.args], {
    cwd: server.cwd,
    env: server.env,
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const send = (message: object) => child.stdin?.write(`${JSON.stringify(message)}\n`);
  try {
    return await new Promise<RawToolList>((resolve, reject) => {
      let initializeMs = 0;
      let buffer = '';
      const timer = setTimeout(
        () => reject(new Error(`${server.args.join(' ')} did not answer in ${LIST_TIMEOUT_MS} ms`)),
        LIST_TIMEOUT_MS,
      );
      const fail = (error: Error) => {
        clearTimeout(timer);
        reject(error);
      };
      child.once('error', fail);
      child.once('exit', (code) => fail(new Error(`exited with ${code} before tools/list`)));
      child.stdout?.on('data', (chunk: Buffer) => {
        buffer += chunk.toString('utf8');
        for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
          const line = buffer.slice(0, end);
          buffer = buffer.slice(end + 1);
          let message: { id?: number; result?: RawToolList['result'] };
          try {
            message = JSON.parse(line);
          } catch {
            continue;
          }
          if (message.id === 1) {
            initializeMs = performance.now() - started;
            send({ jsonrpc: '2.0', method: 'notifications/initialized' });
            send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
          } else if (message.id === 2) {
            clearTimeout(timer);
            resolve({
              result: message.result ?? { tools: [] },
              initializeMs,
              toolsListMs: performance.now() - started,
            });
          }
        }
      });
      send(initializeRequest({ clientName }));
    });
  } finally {
    await stopStdioServer(child);
  }
}

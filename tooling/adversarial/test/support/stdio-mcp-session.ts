import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';

/** The host package, from which the CLI runs with tsx (as its own tests run it). */
export const HOST_DIR = resolve(import.meta.dirname, '../../../../apps/host');
/** The CLI's source entry. */
export const HOST_CLI = join(HOST_DIR, 'src/cli.ts');
/** Node arguments that run the CLI from source. */
export const HOST_NODE_ARGS = ['--conditions=@toolsys/source', '--import', 'tsx'];

/** One JSON-RPC message as read from the server. */
export interface RpcMessage {
  id?: string | number | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** A form elicitation the server sent: its message, answered with a decision. */
export type ElicitationHandler = (message: string) => string | undefined;

/**
 * A bare MCP client session over line-delimited JSON-RPC (the stdio transport): initialize with
 * or without the elicitation capability, call tools, answer `elicitation/create` requests with
 * `onElicit`. Works over a child process's pipes or in-process streams.
 */
export class StdioMcpSession {
  /** Every elicitation message the server sent, in order. */
  readonly elicitations: string[] = [];
  readonly #input: Writable;
  readonly #waiting = new Map<string, (message: RpcMessage) => void>();
  readonly #onElicit: ElicitationHandler | undefined;
  #buffer = '';
  #nextId = 1;

  constructor(output: Readable, input: Writable, options: { onElicit?: ElicitationHandler } = {}) {
    this.#input = input;
    this.#onElicit = options.onElicit;
    output.setEncoding('utf8');
    output.on('data', (text: string) => {
      this.#buffer += text;
      for (let at = this.#buffer.indexOf('\n'); at !== -1; at = this.#buffer.indexOf('\n')) {
        const line = this.#buffer.slice(0, at);
        this.#buffer = this.#buffer.slice(at + 1);
        if (line.trim() !== '') this.#receive(JSON.parse(line) as RpcMessage);
      }
    });
  }

  /** Initializes the session; `elicit` announces the form elicitation capability. */
  async initialize(elicit: boolean): Promise<RpcMessage> {
    const answer = await this.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: elicit ? { elicitation: { form: {} } } : {},
      clientInfo: { name: 'adversary', version: '1.0.0' },
    });
    this.#send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return answer;
  }

  /** Sends a request and waits for its answer. */
  request(method: string, params: unknown = {}): Promise<RpcMessage> {
    const id = this.#nextId++;
    const answer = new Promise<RpcMessage>((done) => this.#waiting.set(String(id), done));
    this.#send({ jsonrpc: '2.0', id, method, params });
    return answer;
  }

  /** Calls a tool; the text of its first content block and whether it is an error. */
  async callTool(
    name: string,
    args: Record<string, unknown>,
  ): Promise<{ text: string; isError: boolean }> {
    const answer = await this.request('tools/call', { name, arguments: args });
    const content = (answer.result?.content ?? []) as Array<{ text?: string }>;
    return {
      text: content[0]?.text ?? answer.error?.message ?? '',
      isError: answer.result?.isError === true || answer.error !== undefined,
    };
  }

  /** Closes the input: the server sees the end of its stdin. */
  end(): void {
    this.#input.end();
  }

  #send(message: unknown): void {
    this.#input.write(`${JSON.stringify(message)}\n`);
  }

  #receive(message: RpcMessage): void {
    if (message.method === 'elicitation/create' && message.id !== undefined) {
      const text = String(message.params?.message ?? '');
      this.elicitations.push(text);
      const decision = this.#onElicit?.(text);
      this.#send({
        jsonrpc: '2.0',
        id: message.id,
        result:
          decision === undefined
            ? { action: 'decline' }
            : { action: 'accept', content: { decision } },
      });
      return;
    }
    if (message.method !== undefined) return;
    const waiter = this.#waiting.get(String(message.id));
    if (waiter) {
      this.#waiting.delete(String(message.id));
      waiter(message);
    }
  }
}

/**
 * Starts the real `toolsys serve --stdio` with the config of `cwd` and its own data directory;
 * the caller kills it by its pid (`stopProcess` of `@toolsys/test-support`).
 */
export function spawnStdioServer(cwd: string, dataDir: string): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [...HOST_NODE_ARGS, HOST_CLI, 'serve', '--stdio'], {
    cwd: HOST_DIR,
    env: { ...process.env, INIT_CWD: cwd, TOOLSYS_DATA_DIR: dataDir },
  });
}

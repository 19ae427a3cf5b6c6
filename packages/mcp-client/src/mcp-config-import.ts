import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { containsSecretShape } from '@toolsys/core-tool-registry/text';
import { type ParseError, parse, printParseErrorCode } from 'jsonc-parser';
import {
  type McpProtocolVersion,
  type McpServerConfig,
  mcpProtocolVersionSchema,
} from './mcp-server-config.js';
import type { McpOAuthSettings } from './oauth/oauth-provider.js';
import { isSecretArgument, SECRET_NAME } from './secret-patterns.js';

/** A problem found while importing a config; `field` is the dotted path in the file. */
export interface McpConfigIssue {
  /** The server entry at fault, when the problem belongs to one. */
  readonly entry?: string;
  /** Dotted path of the field, e.g. `servers.github.env.TOKEN`. */
  readonly field: string;
  /** What is wrong and what to do; never contains a secret value. */
  readonly message: string;
}

/** The config shapes understood by {@link McpConfigImport}. */
export type McpConfigFormat = 'mcpServers' | 'vscode';

/** What an import produced: the servers that are usable, and per-entry errors and warnings. */
export interface McpConfigImportResult {
  /** `mcpServers` (Claude Desktop, Cursor, Claude Code) or `vscode` (`servers` + `inputs`). */
  readonly format: McpConfigFormat;
  /** Servers whose entry imported without error, in file order. */
  readonly servers: McpServerConfig[];
  /** Entries (or the whole file) that could not be imported; other entries still import. */
  readonly errors: McpConfigIssue[];
  /** Usable but risky entries, e.g. a secret written inline. */
  readonly warnings: McpConfigIssue[];
}

/** Options for {@link McpConfigImport}. */
export interface McpConfigImportOptions {
  /**
   * Whose file this is. `imported` (default): a client config file the deployment did not write
   * (a `.vscode/mcp.json` any cloned repository can carry): every server is marked `importedFrom`
   * (started only once the user approves it), an entry's own `"trusted": true` is ignored with a
   * warning, and variables come only from `env` (nothing of the host environment unless given).
   * `deployment`: the deployment's own config: entries may say `"trusted": true`, and `env`
   * defaults to `process.env`.
   */
  origin?: 'imported' | 'deployment';
  /** How the file is named in `importedFrom` and messages, e.g. `.vscode/mcp.json`. Default `an imported config`. */
  source?: string;
  /**
   * Variables for `${env:NAME}` (VS Code) and `${NAME}` / `${NAME:-default}` (mcpServers).
   * Default: none for an imported file (a reference to a variable not given is an entry error),
   * `process.env` for the deployment's own config.
   */
  env?: Readonly<Record<string, string | undefined>>;
  /** Values for VS Code `${input:id}`; an input's own `default` is used when absent here. */
  inputs?: Readonly<Record<string, string>>;
  /** Value of `${workspaceFolder}`. Without it, a reference to it is an entry error. */
  workspaceFolder?: string;
  /**
   * Names of servers to mark trusted (the deployment's choice). Entries that say
   * `"trusted": true` themselves are trusted only when `origin` is `deployment`.
   */
  trusted?: readonly string[];
}

const STDIO_TYPES = new Set(['stdio']);
const HTTP_TYPES: Record<string, McpServerConfig['transport']> = {
  http: 'http',
  'streamable-http': 'streamable-http',
  streamableHttp: 'streamable-http',
  sse: 'sse',
};

/**
 * Imports MCP server lists written for other clients: Claude Desktop, Cursor and Claude Code
 * (`mcpServers`), and VS Code (`servers` + `inputs`, also nested under `mcp` in settings.json).
 * JSON with comments and trailing commas is accepted. A broken entry is reported with its name and
 * field and skipped; the others still import.
 */
export const McpConfigImport = {
  /** Imports from the text of a config file. */
  parse(text: string, options: McpConfigImportOptions = {}): McpConfigImportResult {
    const parseErrors: ParseError[] = [];
    const value: unknown = parse(text, parseErrors, {
      allowTrailingComma: true,
      disallowComments: false,
    });
    if (parseErrors.length > 0) {
      const first = parseErrors[0] as ParseError;
      const { line, column } = lineAndColumn(text, first.offset);
      return {
        format: 'mcpServers',
        servers: [],
        errors: [
          {
            field: '(root)',
            message: `not valid JSON at line ${line}, column ${column}: ${printParseErrorCode(first.error)}`,
          },
        ],
        warnings: [],
      };
    }
    return McpConfigImport.fromObject(value, options);
  },

  /** Imports from a config file on disk. */
  async readFile(
    path: string,
    options: McpConfigImportOptions = {},
  ): Promise<McpConfigImportResult> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'read error';
      return {
        format: 'mcpServers',
        servers: [],
        errors: [{ field: '(root)', message: `cannot read the config file (${code})` }],
        warnings: [],
      };
    }
    return McpConfigImport.parse(text, options);
  },

  /** Imports from an already parsed object. */
  fromObject(value: unknown, options: McpConfigImportOptions = {}): McpConfigImportResult {
    if (!isRecord(value)) {
      return {
        format: 'mcpServers',
        servers: [],
        errors: [{ field: '(root)', message: 'expected a JSON object at the top level' }],
        warnings: [],
      };
    }
    const nested = isRecord(value.mcp) ? value.mcp : undefined;
    if (isRecord(value.servers) || (nested && isRecord(nested.servers))) {
      const root = isRecord(value.servers) ? value : (nested as Record<string, unknown>);
      const prefix = root === value ? '' : 'mcp.';
      return importEntries('vscode', root.servers, `${prefix}servers`, options, {
        inputs: root.inputs,
        inputsField: `${prefix}inputs`,
      });
    }
    if (value.mcpServers !== undefined) {
      return importEntries('mcpServers', value.mcpServers, 'mcpServers', options, {});
    }
    return {
      format: 'mcpServers',
      servers: [],
      errors: [
        {
          field: '(root)',
          message:
            'no server list found: expected "mcpServers" (Claude Desktop, Cursor, Claude Code) or "servers" (VS Code)',
        },
      ],
      warnings: [],
    };
  },
};

interface InputDeclaration {
  readonly id: string;
  readonly defaultValue?: string;
}

function importEntries(
  format: McpConfigFormat,
  entries: unknown,
  field: string,
  options: McpConfigImportOptions,
  vscode: { inputs?: unknown; inputsField?: string },
): McpConfigImportResult {
  const errors: McpConfigIssue[] = [];
  const warnings: McpConfigIssue[] = [];
  const servers: McpServerConfig[] = [];
  if (!isRecord(entries)) {
    errors.push({ field, message: 'expected an object mapping server names to entries' });
    return { format, servers, errors, warnings };
  }
  const declared = new Map<string, InputDeclaration>();
  if (format === 'vscode' && vscode.inputs !== undefined) {
    readInputs(vscode.inputs, vscode.inputsField ?? 'inputs', declared, errors);
  }
  const imported = (options.origin ?? 'imported') === 'imported';
  const substitution: Substitution = {
    format,
    env: options.env ?? (imported ? {} : process.env),
    imported,
    inputs: options.inputs ?? {},
    declared,
    ...(options.workspaceFolder === undefined ? {} : { workspaceFolder: options.workspaceFolder }),
  };
  const trusted = new Set(options.trusted ?? []);
  for (const [name, entry] of Object.entries(entries)) {
    const reader = new EntryReader(name, `${field}.${name}`, substitution);
    const server = reader.read(entry, trusted.has(name));
    errors.push(...reader.errors);
    warnings.push(...reader.warnings);
    if (server && reader.errors.length === 0) {
      servers.push(
        imported ? { ...server, importedFrom: options.source ?? 'an imported config' } : server,
      );
    }
  }
  return { format, servers, errors, warnings };
}

function readInputs(
  inputs: unknown,
  field: string,
  declared: Map<string, InputDeclaration>,
  errors: McpConfigIssue[],
): void {
  if (!Array.isArray(inputs)) {
    errors.push({ field, message: 'expected an array of input declarations' });
    return;
  }
  inputs.forEach((input, index) => {
    if (!isRecord(input) || typeof input.id !== 'string' || input.id === '') {
      errors.push({ field: `${field}.${index}.id`, message: 'required string (the input id)' });
      return;
    }
    declared.set(input.id, {
      id: input.id,
      ...(typeof input.default === 'string' ? { defaultValue: input.default } : {}),
    });
  });
}

interface Substitution {
  readonly format: McpConfigFormat;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Whether the file is an imported one (its variables are not the host's, its trust is not its own). */
  readonly imported: boolean;
  readonly inputs: Readonly<Record<string, string>>;
  readonly declared: ReadonlyMap<string, InputDeclaration>;
  readonly workspaceFolder?: string;
}

class EntryReader {
  readonly errors: McpConfigIssue[] = [];
  readonly warnings: McpConfigIssue[] = [];
  readonly #name: string;
  readonly #field: string;
  readonly #substitution: Substitution;

  constructor(name: string, field: string, substitution: Substitution) {
    this.#name = name;
    this.#field = field;
    this.#substitution = substitution;
  }

  read(entry: unknown, trustedByOption: boolean): McpServerConfig | undefined {
    if (!isRecord(entry)) {
      this.#error(this.#field, 'expected an object with "command" or "url"');
      return undefined;
    }
    if (entry.disabled === true) return undefined;
    const base = this.#base(entry, trustedByOption);
    const type = entry.type ?? entry.transport;
    if (type !== undefined && typeof type !== 'string') {
      this.#error(`${this.#field}.type`, 'expected "stdio", "http" or "sse"');
      return undefined;
    }
    if (type === undefined ? entry.command !== undefined : STDIO_TYPES.has(type)) {
      return this.#stdio(entry, base);
    }
    const transport =
      type === undefined ? (entry.url !== undefined ? 'http' : undefined) : HTTP_TYPES[type];
    if (type !== undefined && transport === undefined) {
      this.#error(`${this.#field}.type`, `unknown type "${type}": use "stdio", "http" or "sse"`);
      return undefined;
    }
    if (transport === undefined) {
      this.#error(this.#field, 'needs "command" (a local server) or "url" (a remote server)');
      return undefined;
    }
    return this.#http(entry, base, transport);
  }

  #base(entry: Record<string, unknown>, trustedByOption: boolean): EntryBase {
    const base: EntryBase = { name: this.#name };
    if (entry.trusted !== undefined && typeof entry.trusted !== 'boolean') {
      this.#error(`${this.#field}.trusted`, 'expected true or false');
    }
    if (entry.trusted === true && this.#substitution.imported && !trustedByOption) {
      this.#warning(
        `${this.#field}.trusted`,
        "ignored: a config file cannot trust its own servers; list the server in the deployment's trusted servers instead",
      );
    }
    if ((entry.trusted === true && !this.#substitution.imported) || trustedByOption) {
      base.trusted = true;
    }
    const timeout = entry.timeoutMs ?? entry.timeout;
    if (timeout !== undefined) {
      if (typeof timeout === 'number' && Number.isFinite(timeout) && timeout > 0) {
        base.timeoutMs = timeout;
      } else {
        this.#error(`${this.#field}.timeout`, 'expected a positive number of milliseconds');
      }
    }
    if (entry.pin !== undefined) {
      if (typeof entry.pin === 'boolean') base.pin = entry.pin;
      else this.#error(`${this.#field}.pin`, 'expected true or false');
    }
    if (entry.protocolVersion !== undefined) {
      const parsed = mcpProtocolVersionSchema.safeParse(entry.protocolVersion);
      if (parsed.success) base.protocolVersion = parsed.data;
      else {
        this.#error(
          `${this.#field}.protocolVersion`,
          `expected one of ${mcpProtocolVersionSchema.options.map((value) => `"${value}"`).join(', ')}`,
        );
      }
    }
    return base;
  }

  #stdio(entry: Record<string, unknown>, base: EntryBase): McpServerConfig | undefined {
    const command = this.#string(entry.command, `${this.#field}.command`, true);
    const args: string[] = [];
    if (entry.args !== undefined) {
      if (!Array.isArray(entry.args)) {
        this.#error(`${this.#field}.args`, 'expected an array of strings');
      } else {
        entry.args.forEach((arg, index) => {
          const field = `${this.#field}.args.${index}`;
          const value = this.#string(arg, field, true);
          if (value !== undefined) args.push(value);
          this.#checkArgSecret(entry.args as unknown[], index);
        });
      }
    }
    const env = this.#record(entry.env, `${this.#field}.env`);
    const cwd =
      entry.cwd === undefined ? undefined : this.#string(entry.cwd, `${this.#field}.cwd`, true);
    if (entry.envFile !== undefined) {
      this.#warning(`${this.#field}.envFile`, 'envFile is not supported; put variables in "env"');
    }
    if (command === undefined) return undefined;
    return {
      ...base,
      transport: 'stdio',
      command,
      ...(args.length > 0 ? { args } : {}),
      ...(env ? { env } : {}),
      ...(cwd === undefined ? {} : { cwd }),
    };
  }

  #http(
    entry: Record<string, unknown>,
    base: EntryBase,
    transport: McpServerConfig['transport'],
  ): McpServerConfig | undefined {
    const field = `${this.#field}.url`;
    const url = this.#string(entry.url, field, true);
    if (url !== undefined) {
      let parsed: URL | undefined;
      try {
        parsed = new URL(url);
      } catch {
        this.#error(field, 'not a valid URL');
      }
      if (parsed && parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
        this.#error(field, `unsupported scheme "${parsed.protocol}": use http: or https:`);
      }
      if (
        parsed &&
        (parsed.password || /[?&](token|key|api[-_]?key|secret)=/i.test(parsed.search))
      ) {
        this.#warning(field, 'a secret is written inline in the URL; pass it in a header instead');
      }
    }
    const headers = this.#record(entry.headers, `${this.#field}.headers`);
    const oauth = this.#oauth(entry.oauth);
    if (url === undefined || transport === 'stdio') return undefined;
    return {
      ...base,
      transport,
      url,
      ...(headers ? { headers } : {}),
      ...(oauth ? { oauth } : {}),
    };
  }

  /** An entry's `oauth`: a client registered beforehand (`clientId`, `clientSecret`, `scope`). */
  #oauth(value: unknown): McpOAuthSettings | undefined {
    const field = `${this.#field}.oauth`;
    if (value === undefined || value === null) return undefined;
    const known = [
      'clientId',
      'clientSecret',
      'scope',
      'scopes',
      'tokenEndpointAuthMethod',
      'clientMetadataUrl',
      'redirectPort',
    ];
    const record = isRecord(value) ? value : undefined;
    const unknown = record ? Object.keys(record).find((key) => !known.includes(key)) : undefined;
    if (!record || unknown !== undefined) {
      this.#error(
        unknown === undefined ? field : `${field}.${unknown}`,
        `expected an object of ${known.join(', ')}`,
      );
      return undefined;
    }
    const text = (key: string) =>
      record[key] === undefined ? undefined : this.#string(record[key], `${field}.${key}`, true);
    const scopes = Array.isArray(record.scopes)
      ? record.scopes.filter((scope): scope is string => typeof scope === 'string').join(' ')
      : undefined;
    const method = text('tokenEndpointAuthMethod');
    if (
      method !== undefined &&
      !['client_secret_basic', 'client_secret_post', 'none'].includes(method)
    ) {
      this.#error(
        `${field}.tokenEndpointAuthMethod`,
        'expected client_secret_basic, client_secret_post or none',
      );
      return undefined;
    }
    const settings: {
      -readonly [K in keyof McpOAuthSettings]: McpOAuthSettings[K];
    } = {};
    const clientId = text('clientId');
    const clientSecret = text('clientSecret');
    if (typeof record.clientSecret === 'string' && !record.clientSecret.includes('${')) {
      this.#warning(`${field}.clientSecret`, 'a secret is written inline; reference it instead');
    }
    const scope = text('scope') ?? scopes;
    const clientMetadataUrl = text('clientMetadataUrl');
    if (clientId !== undefined) settings.clientId = clientId;
    if (clientSecret !== undefined) settings.clientSecret = clientSecret;
    if (scope !== undefined && scope !== '') settings.scope = scope;
    if (clientMetadataUrl !== undefined) settings.clientMetadataUrl = clientMetadataUrl;
    if (record.redirectPort !== undefined) {
      const port = record.redirectPort;
      if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65_535) {
        this.#error(`${field}.redirectPort`, 'expected a port number from 1 to 65535');
        return undefined;
      }
      settings.redirectPort = port;
    }
    if (method !== undefined) {
      settings.tokenEndpointAuthMethod = method as McpOAuthSettings['tokenEndpointAuthMethod'];
    }
    return settings;
  }

  #record(value: unknown, field: string): Record<string, string> | undefined {
    if (value === undefined || value === null) return undefined;
    if (!isRecord(value)) {
      this.#error(field, 'expected an object of string values');
      return undefined;
    }
    const out: Record<string, string> = {};
    for (const [key, raw] of Object.entries(value)) {
      const keyField = `${field}.${key}`;
      if (raw === null) continue;
      const text = typeof raw === 'number' || typeof raw === 'boolean' ? String(raw) : raw;
      const resolved = this.#string(text, keyField, false);
      if (resolved === undefined) continue;
      out[key] = resolved;
      if (typeof raw === 'string' && !raw.includes('${') && raw.trim() !== '') {
        if (SECRET_NAME.test(key) || containsSecretShape(raw)) {
          this.#warning(
            keyField,
            `a secret is written inline; reference it instead (${'$'}{input:…} or ${'$'}{env:…} in VS Code, ${'$'}{NAME} in mcpServers files)`,
          );
        }
      }
    }
    return out;
  }

  #checkArgSecret(args: readonly unknown[], index: number): void {
    if (isSecretArgument(args, index)) {
      this.#warning(
        `${this.#field}.args.${index}`,
        'a secret is written inline in the arguments; pass it through "env" with a reference instead',
      );
    }
  }

  #string(value: unknown, field: string, nonEmpty: boolean): string | undefined {
    if (typeof value !== 'string' || (nonEmpty && value.trim() === '')) {
      this.#error(field, value === undefined ? 'required string' : 'expected a non-empty string');
      return undefined;
    }
    return this.#substitute(value, field);
  }

  #substitute(value: string, field: string): string | undefined {
    let failed = false;
    const result = value.replace(/\$\{([^}]*)\}/g, (whole, expression: string) => {
      const replaced = this.#resolve(expression, field);
      if (replaced === undefined) {
        failed = true;
        return whole;
      }
      return replaced;
    });
    return failed ? undefined : result;
  }

  #resolve(expression: string, field: string): string | undefined {
    const { format, env, inputs, declared, workspaceFolder } = this.#substitution;
    if (expression.startsWith('env:')) {
      const name = expression.slice(4);
      const found = env[name];
      if (found === undefined) this.#missingVariable(field, name);
      return found;
    }
    if (format === 'vscode') {
      if (expression.startsWith('input:')) {
        const id = expression.slice(6);
        const declaration = declared.get(id);
        if (!declaration) {
          this.#error(field, `\${input:${id}} is not declared in "inputs"`);
          return undefined;
        }
        const found = inputs[id] ?? declaration.defaultValue;
        if (found === undefined) {
          this.#error(field, `input "${id}" has no value: supply it in the import's inputs`);
        }
        return found;
      }
      if (expression === 'workspaceFolder') {
        if (workspaceFolder === undefined) {
          this.#error(field, `${'$'}{workspaceFolder} is used but no workspace folder was given`);
        }
        return workspaceFolder;
      }
      if (expression === 'userHome') return homedir();
      this.#error(field, `unsupported variable \${${expression}}`);
      return undefined;
    }
    const match = /^([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s.exec(expression);
    if (!match) {
      this.#error(field, `unsupported variable \${${expression}}`);
      return undefined;
    }
    const found = env[match[1] as string] ?? match[2];
    if (found === undefined) this.#missingVariable(field, match[1] as string);
    return found;
  }

  #missingVariable(field: string, name: string): void {
    this.#error(
      field,
      this.#substitution.imported
        ? `environment variable ${name} is not expanded in an imported config: the deployment must allow it by name (allowEnv of importConfig)`
        : `environment variable ${name} is not set`,
    );
  }

  #error(field: string, message: string): void {
    this.errors.push({ entry: this.#name, field, message });
  }

  #warning(field: string, message: string): void {
    this.warnings.push({ entry: this.#name, field, message });
  }
}

/** What every kind of entry shares. */
interface EntryBase {
  name: string;
  trusted?: boolean;
  timeoutMs?: number;
  protocolVersion?: McpProtocolVersion;
  pin?: boolean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

import type { ToolRisk } from '@toolsys/core-tool-registry';
import { ToolError, ToolErrorCode } from '@toolsys/core-tool-registry';
import { lazyModule } from '@toolsys/platform';

const yaml = lazyModule<typeof import('yaml')>('yaml', import.meta.url);

/** A tool a skill declares: run as a shell command with templated arguments. */
export interface SkillToolSpec {
  /** Tool id, unique in the registry (`web_scrape`). */
  readonly name: string;
  /** What the tool does, for the model. */
  readonly description: string;
  /** JSON Schema of the arguments (an object schema). */
  readonly inputSchema: Readonly<Record<string, unknown>>;
  /**
   * The command line, run by bash in the workspace root. `{{arg}}` placeholders are replaced by
   * the argument's value as one single-quoted shell word; `{{skill_dir}}` and `{{workspace}}` name
   * the skill's folder and the workspace root. Placeholders must stand outside quotes.
   */
  readonly command: string;
  /** Time limit of one run in ms; 30 000 by default, at most 600 000. */
  readonly timeoutMs: number;
  /** Risk of the tool; MEDIUM by default. */
  readonly risk: ToolRisk;
  /** Whether the tool only reads (its runs may be retried). */
  readonly readOnly: boolean;
}

/** A parsed SKILL.md (Agent Skills format plus Toolsys's `tools` extension). */
export interface SkillManifest {
  /** Lower-case letters, digits and hyphens; equals the folder name. */
  readonly name: string;
  /** What the skill does and when to use it. */
  readonly description: string;
  /** Optional licence text or name. */
  readonly license?: string;
  /** Declared tools, registered at run time as first-class tools. */
  readonly tools: readonly SkillToolSpec[];
  /** The Markdown instructions after the front matter. */
  readonly body: string;
}

/** The Agent Skills rule for names: lower-case letters, digits, single hyphens, at most 64. */
export const SKILL_NAME_PATTERN = /^[a-z0-9](?:[a-z0-9]|-(?!-)){0,63}$/;
const TOOL_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
/** Placeholders every skill command may use besides its own arguments. */
export const BUILT_IN_PLACEHOLDERS: readonly string[] = ['skill_dir', 'workspace'];
const RISKS: readonly ToolRisk[] = ['LOW', 'MEDIUM', 'HIGH'];
const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_TIMEOUT_MS = 600_000;

function invalid(field: string, problem: string): ToolError {
  return new ToolError(ToolErrorCode.INVALID_ARGUMENT, `${field}: ${problem}`, {
    field,
    hint: 'Fix SKILL.md (YAML front matter with name and description, optional tools) and retry.',
  });
}

/**
 * Parses SKILL.md text. Problems are INVALID_ARGUMENT {@link ToolError}s naming the front-matter
 * field (`tools.0.command`), prefixed by `fieldPrefix` when given.
 */
export function parseSkillManifest(text: string, fieldPrefix = ''): SkillManifest {
  const at = (field: string) => `${fieldPrefix}${field}`;
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!match) throw invalid(at('SKILL.md'), 'must start with YAML front matter between --- lines');
  let front: unknown;
  try {
    front = yaml().parse(match[1] ?? '');
  } catch (error) {
    throw invalid(at('SKILL.md'), `front matter is not valid YAML (${(error as Error).message})`);
  }
  if (typeof front !== 'object' || front === null || Array.isArray(front)) {
    throw invalid(at('SKILL.md'), 'front matter must be a mapping');
  }
  const meta = front as Record<string, unknown>;
  const name = meta.name;
  if (typeof name !== 'string' || !SKILL_NAME_PATTERN.test(name) || name.endsWith('-')) {
    throw invalid(
      at('name'),
      'required; lower-case letters, digits and single hyphens, at most 64 characters',
    );
  }
  const description = meta.description;
  if (typeof description !== 'string' || description.trim() === '' || description.length > 1024) {
    throw invalid(at('description'), 'required; non-empty text of at most 1024 characters');
  }
  const rawTools = meta.tools ?? [];
  if (!Array.isArray(rawTools)) throw invalid(at('tools'), 'must be a list');
  const tools = rawTools.map((raw, index) => parseToolSpec(raw, at(`tools.${index}`)));
  const seen = new Set<string>();
  tools.forEach((tool, index) => {
    if (seen.has(tool.name)) throw invalid(at(`tools.${index}.name`), `"${tool.name}" twice`);
    seen.add(tool.name);
  });
  const manifest: {
    -readonly [K in keyof SkillManifest]: SkillManifest[K];
  } = {
    name,
    description: description.trim(),
    tools,
    body: text.slice(match[0].length).trim(),
  };
  if (typeof meta.license === 'string') manifest.license = meta.license;
  return manifest;
}

function parseToolSpec(raw: unknown, field: string): SkillToolSpec {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw invalid(field, 'must be a mapping with name, description and command');
  }
  const spec = raw as Record<string, unknown>;
  const name = spec.name;
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    throw invalid(
      `${field}.name`,
      'required; lower-case letters, digits and "_", starting with a letter',
    );
  }
  const description = spec.description;
  if (typeof description !== 'string' || description.trim() === '') {
    throw invalid(`${field}.description`, 'required; non-empty text');
  }
  const schema = spec.input_schema ?? { type: 'object', properties: {} };
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw invalid(`${field}.input_schema`, 'must be a JSON Schema object');
  }
  const schemaRecord = schema as Record<string, unknown>;
  if (schemaRecord.type !== undefined && schemaRecord.type !== 'object') {
    throw invalid(`${field}.input_schema.type`, 'must be "object"');
  }
  const properties = schemaRecord.properties ?? {};
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) {
    throw invalid(`${field}.input_schema.properties`, 'must be a mapping');
  }
  const command = spec.command;
  if (typeof command !== 'string' || command.trim() === '') {
    throw invalid(`${field}.command`, 'required; the command line to run');
  }
  validateTemplate(command, Object.keys(properties), `${field}.command`);
  const timeout = spec.timeout_ms ?? DEFAULT_TIMEOUT_MS;
  if (
    typeof timeout !== 'number' ||
    !Number.isInteger(timeout) ||
    timeout < 100 ||
    timeout > MAX_TIMEOUT_MS
  ) {
    throw invalid(`${field}.timeout_ms`, `an integer between 100 and ${MAX_TIMEOUT_MS}`);
  }
  const risk = spec.risk ?? 'MEDIUM';
  if (!RISKS.includes(risk as ToolRisk)) throw invalid(`${field}.risk`, 'LOW, MEDIUM or HIGH');
  const readOnly = spec.read_only ?? false;
  if (typeof readOnly !== 'boolean') throw invalid(`${field}.read_only`, 'must be true or false');
  return {
    name,
    description: description.trim(),
    inputSchema: { ...schemaRecord, type: 'object', properties },
    command,
    timeoutMs: timeout,
    risk: risk as ToolRisk,
    readOnly,
  };
}

/**
 * Checks that every placeholder names a declared argument or a built-in and stands outside
 * quotes (a quoted placeholder would be re-quoted and change meaning).
 */
function validateTemplate(command: string, argumentNames: readonly string[], field: string): void {
  const known = new Set([...argumentNames, ...BUILT_IN_PLACEHOLDERS]);
  for (const match of command.matchAll(PLACEHOLDER)) {
    const placeholder = match[1] as string;
    if (!known.has(placeholder)) {
      throw invalid(field, `placeholder {{${placeholder}}} is not a declared argument`);
    }
    if (quoteStateAt(command, match.index ?? 0) !== 'none') {
      throw invalid(field, `placeholder {{${placeholder}}} must not be inside quotes`);
    }
  }
}

function quoteStateAt(command: string, position: number): 'none' | 'single' | 'double' {
  let state: 'none' | 'single' | 'double' = 'none';
  for (let index = 0; index < position; index++) {
    const char = command[index];
    if (state === 'single') {
      if (char === "'") state = 'none';
    } else if (char === '\\') {
      index += 1;
    } else if (state === 'double') {
      if (char === '"') state = 'none';
    } else if (char === "'") {
      state = 'single';
    } else if (char === '"') {
      state = 'double';
    }
  }
  return state;
}

/** Quotes a value as one POSIX shell word: nothing inside it is interpreted. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * Renders a command template: each `{{name}}` becomes the shell-quoted value. Strings, numbers and
 * booleans are one word; arrays become one word per element; objects become JSON; a missing
 * argument becomes an empty word `''`.
 */
export function renderCommand(template: string, values: Readonly<Record<string, unknown>>): string {
  return template.replace(PLACEHOLDER, (_match, name: string) => {
    const value = values[name];
    if (value === undefined || value === null) return "''";
    if (Array.isArray(value)) {
      return value.length === 0 ? "''" : value.map((item) => shellQuote(wordOf(item))).join(' ');
    }
    return shellQuote(wordOf(value));
  });
}

function wordOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? '';
}

/** Renders a SKILL.md from a manifest (used by `skill_create`). */
export function renderSkillManifest(manifest: SkillManifest): string {
  const front: Record<string, unknown> = {
    name: manifest.name,
    description: manifest.description,
  };
  if (manifest.license) front.license = manifest.license;
  if (manifest.tools.length > 0) {
    front.tools = manifest.tools.map((tool) => {
      const entry: Record<string, unknown> = {
        name: tool.name,
        description: tool.description,
        input_schema: tool.inputSchema,
        command: tool.command,
      };
      if (tool.timeoutMs !== DEFAULT_TIMEOUT_MS) entry.timeout_ms = tool.timeoutMs;
      if (tool.risk !== 'MEDIUM') entry.risk = tool.risk;
      if (tool.readOnly) entry.read_only = true;
      return entry;
    });
  }
  return `---\n${yaml().stringify(front).trimEnd()}\n---\n\n${manifest.body.trim()}\n`;
}

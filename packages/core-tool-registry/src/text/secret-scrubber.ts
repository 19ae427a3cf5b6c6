import type { AnyToolDefinition, ToolReturn } from '../contract/tool.js';

/** What a secret is replaced by in text shown to the model. */
export const REDACTED = '[redacted]';

/**
 * Shapes of credential values, recognised wherever they appear (not only under a secret-looking
 * name). Each starts with a literal or a single character class and has only bounded quantifiers
 * on character classes, never nested ones, so a match attempt at one position does a bounded
 * amount of work and scrubbing is linear in the text.
 */
export const SECRET_VALUE_SHAPES: readonly { readonly name: string; readonly pattern: string }[] = [
  // `scheme://user:password@` and `scheme://:password@` (Redis, Postgres, AMQP, HTTP …).
  {
    name: 'url-credentials',
    pattern: String.raw`\b[A-Za-z][A-Za-z0-9+.\-]{0,30}:\/\/[^\s\/:@]{0,128}:[^\s\/@]{1,256}@`,
  },
  // Stripe secret and restricted keys, and webhook signing secrets.
  {
    name: 'stripe',
    pattern: String.raw`\b[rs]k_(?:live|test)_[A-Za-z0-9]{10,128}|\bwhsec_[A-Za-z0-9]{20,128}`,
  },
  // OpenAI (`sk-…`, `sk-proj-…`) and Anthropic (`sk-ant-…`) keys.
  { name: 'sk-key', pattern: String.raw`\bsk-[A-Za-z0-9_\-]{20,256}` },
  // GitHub tokens.
  {
    name: 'github',
    pattern: String.raw`\bgh[pousr]_[A-Za-z0-9]{30,255}|\bgithub_pat_[A-Za-z0-9_]{30,255}`,
  },
  // npm access tokens, Hugging Face tokens, GitLab tokens (personal, deploy, runner, trigger …).
  { name: 'npm', pattern: String.raw`\bnpm_[A-Za-z0-9]{30,64}` },
  { name: 'huggingface', pattern: String.raw`\bhf_[A-Za-z0-9]{30,64}` },
  {
    name: 'gitlab',
    pattern: String.raw`\bgl(?:pat|dt|rt|ptt|ft|imt|agent|oas|cbt|soat|ffct|sa)-[A-Za-z0-9_.\-]{20,128}`,
  },
  // Slack tokens.
  {
    name: 'slack-token',
    pattern: String.raw`\bxox[abprs]-[A-Za-z0-9\-]{10,256}|\bxapp-[A-Za-z0-9\-]{10,256}`,
  },
  // Slack and Discord webhook URLs (the URL is the credential).
  {
    name: 'slack-webhook',
    pattern: String.raw`https?:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9\/_\-]{8,256}`,
  },
  {
    name: 'discord-webhook',
    pattern: String.raw`https?:\/\/[A-Za-z.]{0,20}discord(?:app)?\.com\/api\/[A-Za-z0-9\/]{0,8}webhooks\/[0-9]{5,30}\/[A-Za-z0-9_\-]{10,256}`,
  },
  // SendGrid keys.
  { name: 'sendgrid', pattern: String.raw`\bSG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{16,64}` },
  // AWS access key ids.
  { name: 'aws-access-key', pattern: String.raw`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b` },
  // JSON Web Tokens (header and payload are base64url JSON objects).
  {
    name: 'jwt',
    pattern: String.raw`\beyJ[A-Za-z0-9_\-]{5,512}\.eyJ[A-Za-z0-9_\-]{5,8192}\.[A-Za-z0-9_\-]{0,1024}`,
  },
  // `Password=…` anywhere, `Pwd=…` as a connection-string field.
  {
    name: 'connection-password',
    pattern: String.raw`(?:\b[Pp][Aa][Ss][Ss][Ww][Oo][Rr][Dd]|;[ \t]{0,8}[Pp][Ww][Dd])[ \t]{0,8}=[ \t]{0,8}(?:"[^"\n]{0,256}"|'[^'\n]{0,256}'|[^;\s"']{1,256})`,
  },
  // Azure storage and service bus connection strings: `AccountKey=…`, `SharedAccessKey=…`.
  {
    name: 'azure-key',
    pattern: String.raw`\b(?:Account|SharedAccess)Key[ \t]{0,8}=[ \t]{0,8}[A-Za-z0-9+\/=]{16,512}`,
  },
  // PEM private key blocks (the body, whether or not the END line follows; also with the line
  // breaks escaped as `\n`, as in a service-account JSON file).
  {
    name: 'private-key',
    pattern: String.raw`-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----[A-Za-z0-9+\/=\s\\]{0,20000}`,
  },
  // A base64-encoded PEM block (`-----BEGIN` encoded), as in Kubernetes secrets and `.env` files.
  { name: 'private-key-base64', pattern: String.raw`\bLS0tLS1CRUdJTi[A-Za-z0-9+\/=]{20,40000}` },
  // Google API keys.
  { name: 'google-api-key', pattern: String.raw`\bAIza[0-9A-Za-z_\-]{35}` },
  // Bearer tokens as printed in headers and logs.
  {
    name: 'bearer',
    pattern: String.raw`\b[Bb][Ee][Aa][Rr][Ee][Rr][ \t]{1,8}[A-Za-z0-9._~+\/\-]{16,1024}={0,2}`,
  },
];

const PASSWORD_FIELD = /^(;?\s*(?:password|pwd|accountkey|sharedaccesskey)\s*=\s*)/i;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

const COMBINED = new RegExp(
  SECRET_VALUE_SHAPES.map(({ pattern }) => `(?:${pattern})`).join('|'),
  'g',
);

/**
 * The shapes searched in reversed text: those of tokens (a URL with a password is not reversed in
 * practice, and searching its loose start backwards costs more than the rest together).
 */
const REVERSED_SHAPES = new RegExp(
  SECRET_VALUE_SHAPES.filter(({ name }) => name !== 'url-credentials')
    .map(({ pattern }) => `(?:${pattern})`)
    .join('|'),
  'g',
);

/** The replacement of one recognised secret: the field name or URL scheme stays readable. */
function replacement(match: string): string {
  const field = PASSWORD_FIELD.exec(match);
  if (field !== null) return `${field[1]}${REDACTED}`;
  if (match.endsWith('@')) {
    const scheme = SCHEME.exec(match);
    if (scheme !== null) return `${scheme[0]}${REDACTED}@`;
  }
  if (match.startsWith('-----BEGIN')) {
    const header = match.slice(0, match.indexOf('-----', 5) + 5);
    return `${header}\n${REDACTED}\n`;
  }
  return REDACTED;
}

/**
 * Whether a text contains a value shaped like a credential (see {@link SECRET_VALUE_SHAPES}),
 * also written backwards or folded over lines.
 */
export function containsSecretShape(text: string): boolean {
  COMBINED.lastIndex = 0;
  if (COMBINED.test(text)) return true;
  COMBINED.lastIndex = 0;
  if (text.length > TRANSFORMED_SCAN_MAX_CHARS) return false;
  return redactFoldedSecrets(redactReversedSecrets(text)) !== text;
}

/**
 * Replaces secrets in a text shown to the model, a trace, an artifact or the dashboard: every
 * value shaped like a credential ({@link SECRET_VALUE_SHAPES}), and every occurrence of the known
 * secret values given (for example the values of configured environment variables; values
 * shorter than 4 characters are ignored, as they would blank ordinary text). Linear in the text.
 * The one scrubber: every path that redacts uses it.
 */
export function scrubSecrets(text: string, knownValues: readonly string[] = []): string {
  let scrubbed = text;
  const known = knownValues
    .filter((value) => value.length >= 4)
    .sort((a, b) => b.length - a.length);
  for (const value of known) {
    if (scrubbed.includes(value)) scrubbed = scrubbed.split(value).join(REDACTED);
  }
  scrubbed = scrubbed.replace(COMBINED, replacement);
  if (scrubbed.length > TRANSFORMED_SCAN_MAX_CHARS) return scrubbed;
  return redactFoldedSecrets(redactReversedSecrets(scrubbed));
}

/**
 * Longest text searched for reversed and folded credentials (256 Ki characters, more than a
 * result shows): those passes cost several times the direct one, and a longer text is not shown
 * whole anyway. Direct shapes and known values are replaced in texts of any length.
 */
export const TRANSFORMED_SCAN_MAX_CHARS = 262_144;

/** The `[start, end)` ranges of every credential shape in a text. */
function secretRanges(text: string, shapes: RegExp = COMBINED): [number, number][] {
  const ranges: [number, number][] = [];
  shapes.lastIndex = 0;
  for (const match of text.matchAll(shapes)) {
    ranges.push([match.index, match.index + match[0].length]);
  }
  return ranges;
}

/**
 * Credentials written backwards (`rev`, `tac | rev`): the shapes are searched in the reversed
 * text and the matching ranges replaced in the original. Reversing by UTF-16 unit is enough, as
 * every shape is ASCII.
 */
function redactReversedSecrets(text: string): string {
  const reversed = reverseText(text);
  const ranges = secretRanges(reversed, REVERSED_SHAPES);
  if (ranges.length === 0) return text;
  let result = text;
  // From the end of the original text (the start of the reversed one) so indices stay valid.
  for (const [start, end] of ranges) {
    result = `${result.slice(0, text.length - end)}${REDACTED}${result.slice(text.length - start)}`;
  }
  return result;
}

/** The text backwards, by UTF-16 unit (a surrogate pair becomes two U+FFFD, one per unit). */
function reverseText(text: string): string {
  const length = text.length;
  const units = new Uint16Array(length);
  for (let index = 0; index < length; index += 1) {
    units[length - 1 - index] = text.charCodeAt(index);
  }
  return new TextDecoder('utf-16le').decode(units);
}

/** Widths of lines considered as a credential folded over lines (`fold -w 12`, `base64 -w 40`). */
const FOLD_WIDTH = { min: 4, max: 200 } as const;

/**
 * Credentials folded over lines of one width (`fold -w N`, `base64 -w N`, wrapped logs): each run
 * of lines of one width (and the shorter line that ends it) is joined, and the lines a credential
 * shape spans are replaced. Each line is joined at most twice, so this stays linear.
 */
function redactFoldedSecrets(text: string): string {
  if (!text.includes('\n')) return text;
  const lines = text.split('\n');
  const redacted = new Set<number>();
  let index = 0;
  while (index < lines.length) {
    const width = (lines[index] as string).length;
    let next = index + 1;
    while (next < lines.length && (lines[next] as string).length === width) next += 1;
    const tail = next < lines.length && (lines[next] as string).length < width ? 1 : 0;
    const end = next + tail;
    if (width >= FOLD_WIDTH.min && width <= FOLD_WIDTH.max && end - index >= 2) {
      const joined = lines.slice(index, end).join('');
      for (const [start, stop] of secretRanges(joined)) {
        const first = index + Math.floor(start / width);
        const last = index + Math.floor((stop - 1) / width);
        // A shape inside one line was already replaced by the direct pass.
        if (last === first) continue;
        for (let line = first; line <= Math.min(last, end - 1); line += 1) redacted.add(line);
      }
    }
    // The shorter line may start the next run (a header line before a folded block).
    index = next;
  }
  if (redacted.size === 0) return text;
  return lines.map((line, position) => (redacted.has(position) ? REDACTED : line)).join('\n');
}

/** Every string inside a JSON-like value scrubbed with {@link scrubSecrets}; the shape is kept. */
export function scrubSecretsDeep<T>(value: T, knownValues: readonly string[] = []): T {
  const visit = (item: unknown): unknown => {
    if (typeof item === 'string') return scrubSecrets(item, knownValues);
    if (Array.isArray(item)) return item.map(visit);
    if (item !== null && typeof item === 'object') {
      const copy: Record<string, unknown> = {};
      for (const [key, entry] of Object.entries(item)) copy[key] = visit(entry);
      return copy;
    }
    return item;
  };
  return visit(value) as T;
}

/**
 * A tool's return value with every secret replaced ({@link scrubSecrets}): the text, the error
 * message, hint and details, the structured data and the artifact descriptions; artifact paths
 * are kept. The one place results are redacted, for every tool that shows outside text.
 */
export function scrubToolReturn(
  result: ToolReturn,
  knownValues: readonly string[] = [],
): ToolReturn {
  const scrub = (text: string) => scrubSecrets(text, knownValues);
  if (typeof result === 'string') return scrub(result);
  if (!result.ok) {
    const { details, ...error } = result.error;
    return {
      ...result,
      error: {
        ...error,
        message: scrub(error.message),
        hint: scrub(error.hint),
        ...(details === undefined ? {} : { details: scrubSecretsDeep(details, knownValues) }),
      },
    };
  }
  return {
    ...result,
    content: scrub(result.content),
    ...(result.data === undefined ? {} : { data: scrubSecretsDeep(result.data, knownValues) }),
    ...(result.artifacts === undefined
      ? {}
      : {
          artifacts: result.artifacts.map((artifact) =>
            artifact.description === undefined
              ? artifact
              : { ...artifact, description: scrub(artifact.description) },
          ),
        }),
  };
}

/**
 * The tool with every return value passed through {@link scrubToolReturn}: for tools whose
 * results carry outside text (command output, web pages, HTTP responses).
 */
export function withSecretScrubbing<T extends AnyToolDefinition>(
  tool: T,
  knownValues: readonly string[] = [],
): T {
  return {
    ...tool,
    execute: async (args: unknown, context: Parameters<T['execute']>[1]) =>
      scrubToolReturn(await tool.execute(args, context), knownValues),
  };
}

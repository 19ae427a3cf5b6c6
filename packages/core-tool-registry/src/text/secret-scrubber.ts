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
  // PEM private key blocks (the body, whether or not the END line follows).
  {
    name: 'private-key',
    pattern: String.raw`-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----[A-Za-z0-9+\/=\s]{0,20000}`,
  },
  // Google API keys.
  { name: 'google-api-key', pattern: String.raw`\bAIza[0-9A-Za-z_\-]{35}` },
  // Bearer tokens as printed in headers and logs.
  {
    name: 'bearer',
    pattern: String.raw`\b[Bb][Ee][Aa][Rr][Ee][Rr][ \t]{1,8}[A-Za-z0-9._~+\/\-]{16,1024}={0,2}`,
  },
];

const PASSWORD_FIELD = /^(;?\s*(?:password|pwd)\s*=\s*)/i;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

const COMBINED = new RegExp(
  SECRET_VALUE_SHAPES.map(({ pattern }) => `(?:${pattern})`).join('|'),
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

/** Whether a text contains a value shaped like a credential (see {@link SECRET_VALUE_SHAPES}). */
export function containsSecretShape(text: string): boolean {
  COMBINED.lastIndex = 0;
  return COMBINED.test(text);
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
  return scrubbed.replace(COMBINED, replacement);
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

// `text_transform`: case, whitespace and encoding transformations of a text.
import {
  type AnyToolDefinition,
  defineTool,
  RunPolicies,
  successResult,
  ToolError,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';

const MAX_TEXT_LENGTH = 1_000_000;

const TEXT_OPERATIONS = [
  'upper',
  'lower',
  'title',
  'sentence',
  'camel',
  'pascal',
  'snake',
  'kebab',
  'constant',
  'trim',
  'collapse_whitespace',
  'slug',
  'reverse',
  'base64_encode',
  'base64_decode',
  'url_encode',
  'url_decode',
  'html_escape',
  'html_unescape',
  'length',
] as const;

type TextOperation = (typeof TEXT_OPERATIONS)[number];

function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

const capitalise = (word: string) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase();

function transform(text: string, operation: TextOperation): string {
  switch (operation) {
    case 'upper':
      return text.toUpperCase();
    case 'lower':
      return text.toLowerCase();
    case 'title':
      return text.replace(/\p{L}[\p{L}'’]*/gu, capitalise);
    case 'sentence':
      return text
        .toLowerCase()
        .replace(/(^\s*\p{L}|[.!?]\s+\p{L})/gu, (match) => match.toUpperCase());
    case 'camel':
      return words(text)
        .map((word, index) => (index === 0 ? word.toLowerCase() : capitalise(word)))
        .join('');
    case 'pascal':
      return words(text).map(capitalise).join('');
    case 'snake':
      return words(text)
        .map((word) => word.toLowerCase())
        .join('_');
    case 'kebab':
      return words(text)
        .map((word) => word.toLowerCase())
        .join('-');
    case 'constant':
      return words(text)
        .map((word) => word.toUpperCase())
        .join('_');
    case 'trim':
      return text.trim();
    case 'collapse_whitespace':
      return text.replace(/\s+/g, ' ').trim();
    case 'slug':
      return text
        .normalize('NFKD')
        .replace(/[\u0300-\u036f]/g, '')
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, '');
    case 'reverse':
      return [...text].reverse().join('');
    case 'base64_encode':
      return Buffer.from(text, 'utf8').toString('base64');
    case 'base64_decode': {
      const compact = text.replace(/\s+/g, '');
      if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(compact) || compact.length % 4 === 1) {
        throw new ToolError(ToolErrorCode.INVALID_ARGUMENT, 'text: not valid base64', {
          field: 'text',
        });
      }
      return Buffer.from(compact, 'base64').toString('utf8');
    }
    case 'url_encode':
      return encodeURIComponent(text);
    case 'url_decode':
      try {
        return decodeURIComponent(text.replace(/\+/g, ' '));
      } catch {
        throw new ToolError(ToolErrorCode.INVALID_ARGUMENT, 'text: malformed percent-encoding', {
          field: 'text',
        });
      }
    case 'html_escape':
      return text
        .replace(/&/g, '&amp;')
        .replace(/</g, '&lt;')
        .replace(/>/g, '&gt;')
        .replace(/"/g, '&quot;')
        .replace(/'/g, '&#39;');
    case 'html_unescape':
      return text
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&amp;/g, '&');
    case 'length':
      return String([...text].length);
    default: {
      const unreachable: never = operation;
      throw new Error(`unknown operation ${String(unreachable)}`);
    }
  }
}

const textTransformSchema = ToolSchema.object({
  text: z.string().max(MAX_TEXT_LENGTH).describe('Text.'),
  operation: z.enum(TEXT_OPERATIONS).describe('Operation.'),
});

/** The `text_transform` tool. */
export function createTextTransformTool(): AnyToolDefinition {
  return defineTool({
    id: 'text_transform',
    description: 'Changes case, trims, slugifies, encodes or decodes text (Base64, URL, HTML).',
    inputSchema: textTransformSchema,
    metadata: { category: 'utility', risk: 'LOW', tags: ['text'], annotations: ToolHints.readOnly },
    runPolicy: RunPolicies.quickRead,
    execute({ text, operation }) {
      const output = transform(text, operation);
      return successResult(output, { data: { operation, result: output } });
    },
  });
}

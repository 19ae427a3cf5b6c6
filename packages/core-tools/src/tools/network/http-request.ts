// http_request: any method, headers and body; status, redacted headers and body come back.
import {
  type AnyToolDefinition,
  defineTool,
  failureResult,
  RunPolicies,
  successResult,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import {
  cleanUntrustedLine,
  escapeInvisible,
  markUntrusted,
} from '@toolsys/core-tool-registry/text';
import { type GuardedResponse, guardedRequest, readBody } from '@toolsys/platform';
import { z } from 'zod';
import {
  isTextual,
  type NetworkSettings,
  urlField,
  WEB_PAGE_NOTICE,
  withRequestTimeout,
} from './shared.js';
import { shownJson } from './shown-json.js';
import { decodeText } from './web-page-text.js';

const MAX_HTTP_BODY_CHARS = 50_000;
/** Headers whose values never appear in results, data or messages. */
const SECRET_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
]);

const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const httpRequestSchema = ToolSchema.object({
  url: urlField,
  method: z.enum(HTTP_METHODS).default('GET').describe('Method.'),
  headers: z.record(z.string(), z.string()).optional().describe('Request headers.'),
  json: z.unknown().optional().describe('JSON body.'),
  body: z.string().max(1_000_000).optional().describe('Text body.'),
  follow_redirects: z.boolean().default(true).describe('Follow redirects (up to 5).'),
});

/** The `http_request` tool. */
export function createHttpRequestTool(settings: NetworkSettings): AnyToolDefinition {
  return defineTool({
    id: 'http_request',
    description: 'Sends an HTTP request; returns status, headers and body. Any status is a result.',
    inputSchema: httpRequestSchema,
    outputSchema: ToolSchema.object({
      status: z.number(),
      statusText: z.string(),
      url: z.string(),
      headers: z.record(z.string(), z.string()),
      body: z.string().optional(),
      json: z.unknown().optional(),
      truncated: z.boolean(),
    }),
    metadata: {
      category: 'network',
      risk: 'MEDIUM',
      tags: ['web', 'api'],
      annotations: { ...ToolHints.destructive, openWorldHint: true, sensitiveAction: true },
    },
    runPolicy: RunPolicies.network,
    async execute({ url, method, headers, json, body, follow_redirects }, context) {
      if (json !== undefined && body !== undefined) {
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          'body: give either json or body, not both.',
          { field: 'body' },
        );
      }
      const requestHeaders: Record<string, string> = { 'user-agent': settings.userAgent };
      for (const [name, value] of Object.entries(headers ?? {})) {
        if (!HEADER_NAME.test(name)) {
          return failureResult(
            ToolErrorCode.INVALID_ARGUMENT,
            `headers.${name}: not a valid header name.`,
            { field: `headers.${name}`, hint: 'Header names are letters, digits and - only.' },
          );
        }
        if (/[\r\n\0]/.test(value)) {
          return failureResult(
            ToolErrorCode.INVALID_ARGUMENT,
            `headers.${name}: header values may not contain line breaks or NUL.`,
            { field: `headers.${name}` },
          );
        }
        requestHeaders[name.toLowerCase()] = value;
      }
      let payload: string | undefined = body;
      if (json !== undefined) {
        payload = JSON.stringify(json);
        requestHeaders['content-type'] ??= 'application/json';
      }
      if (payload !== undefined && (method === 'GET' || method === 'HEAD')) {
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          `body: a ${method} request cannot carry a body.`,
          {
            field: json !== undefined ? 'json' : 'body',
            hint: 'Use POST, PUT or PATCH to send a body.',
          },
        );
      }
      return withRequestTimeout(settings, context, async (signal) => {
        const response = await guardedRequest({
          url,
          guard: settings.guard,
          method,
          headers: requestHeaders,
          ...(payload !== undefined ? { body: payload } : {}),
          signal,
          maxRedirects: follow_redirects ? 5 : 0,
        });
        const { buffer, truncated } = await readBody(response, settings.maxResponseBytes, signal);
        const contentType = String(response.headers['content-type'] ?? '');
        const shownHeaders = redactHeaders(response.headers);
        const data: Record<string, unknown> = {
          status: response.status,
          statusText: response.statusText,
          url: response.url,
          headers: shownHeaders,
          truncated,
        };
        // Everything the server wrote (headers, body) is shown between untrusted-content markers,
        // hidden characters as escapes, so a forged `Error:` or `Next:` line cannot pass as ours.
        const statusText = cleanUntrustedLine(response.statusText, 100);
        const outside: string[] = [];
        for (const [name, value] of Object.entries(shownHeaders)) {
          outside.push(`${name}: ${escapeInvisible(value)}`);
        }
        const notes: string[] = [];
        if (buffer.length > 0) {
          outside.push('');
          if (isTextual(contentType, buffer)) {
            const text = decodeText(buffer, contentType);
            const shown = escapeInvisible(text.slice(0, MAX_HTTP_BODY_CHARS), {
              keepNewlines: true,
            });
            data.body = shown;
            if (/\bjson\b/i.test(contentType)) {
              try {
                data.json = shownJson(JSON.parse(text));
              } catch {
                // Not valid JSON despite the content type: the text is still returned.
              }
            }
            outside.push(shown);
            if (text.length > MAX_HTTP_BODY_CHARS) {
              notes.push(`[Body cut at ${MAX_HTTP_BODY_CHARS} of ${text.length} characters.]`);
            }
          } else {
            notes.push(
              `[Binary body of ${buffer.length} bytes not shown; use download_file to save it.]`,
            );
          }
          if (truncated) {
            notes.push(
              `[Only the first ${settings.maxResponseBytes} bytes of the body were read.]`,
            );
          }
        }
        data.statusText = statusText;
        const lines = [
          `HTTP ${response.status} ${statusText}`.trim(),
          WEB_PAGE_NOTICE,
          markUntrusted(outside.join('\n'), 'web-page'),
          ...notes,
        ];
        return successResult(lines.join('\n'), { data });
      });
    },
  });
}

function redactHeaders(headers: GuardedResponse['headers']): Record<string, string> {
  const shown: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    shown[name] = SECRET_HEADERS.has(name)
      ? '[redacted]'
      : Array.isArray(value)
        ? value.join(', ')
        : value;
  }
  return shown;
}

import {
  type AnyToolDefinition,
  invalidArgument,
  isToolError,
  successResult,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { lazyModule } from '@toolsys/platform';
import type { XMLSerializer } from '@xmldom/xmldom';
import type { SelectReturnType } from 'xpath';
import { z } from 'zod';
import { DEFAULT_MATCH_TIME_LIMIT_MS, runWithTimeLimit } from './run-with-time-limit.js';
import { defineStructuredTool, queryLimitField } from './shared.js';

const xmldom = lazyModule<typeof import('@xmldom/xmldom')>('@xmldom/xmldom', import.meta.url);
const xpath = lazyModule<typeof import('xpath')>('xpath', import.meta.url);

const MAX_XML_LENGTH = 5_000_000;
const MAX_NODE_XML_LENGTH = 10_000;
const MAX_RENDERED_LENGTH = 20_000;

const NODE_TYPES: Record<number, string> = {
  1: 'element',
  2: 'attribute',
  3: 'text',
  4: 'cdata',
  7: 'processing-instruction',
  8: 'comment',
  9: 'document',
};

const xmlExtractSchema = ToolSchema.object({
  xml: z.string().min(1).max(MAX_XML_LENGTH).describe('XML text.'),
  xpath: z.string().min(1).max(2_000).describe('E.g. "//item/@id".'),
  namespaces: z
    .record(z.string().min(1), z.string().min(1))
    .optional()
    .describe('Prefix to namespace URI.'),
  limit: queryLimitField('nodes'),
});

const nodeSchema = z.object({
  type: z.string(),
  name: z.string().optional(),
  value: z.string(),
  xml: z.string().optional(),
});

type ExtractedNode = z.infer<typeof nodeSchema>;

function createXmlExtractTool(timeLimitMs: number): AnyToolDefinition {
  return defineStructuredTool({
    id: 'xml_extract',
    description: 'Evaluates XPath 1.0 on an XML document; returns nodes or a value.',
    inputSchema: xmlExtractSchema,
    outputSchema: ToolSchema.object({
      kind: z.enum(['nodes', 'string', 'number', 'boolean']),
      count: z.number().optional(),
      truncated: z.boolean().optional(),
      nodes: z.array(nodeSchema).optional(),
      value: z.union([z.string(), z.number(), z.boolean()]).optional(),
      warnings: z.array(z.string()).optional(),
    }),
    tags: ['xml', 'query'],
    execute(args) {
      const warnings: string[] = [];
      const document = parseXml(args.xml, warnings);
      const select = xpath().useNamespaces(args.namespaces ?? {});
      let selected: SelectReturnType;
      try {
        selected = runWithTimeLimit(
          () => select(args.xpath, document),
          timeLimitMs,
          'xml_extract',
          'Use a simpler XPath (fewer // descendant steps, predicates and unions), or extract from a smaller document, then retry.',
        );
      } catch (error) {
        if (isToolError(error)) throw error;
        throw invalidArgument(
          'xpath',
          `cannot evaluate the expression: ${(error as Error).message}`,
          'Fix the XPath 1.0 expression (declare every prefix in namespaces) and retry.',
        );
      }
      const extra = warnings.length > 0 ? { warnings: warnings.slice(0, 20) } : {};
      if (!Array.isArray(selected)) {
        const value = selected as string | number | boolean;
        const kind = typeof value as 'string' | 'number' | 'boolean';
        return successResult(String(value), { data: { kind, value, ...extra } });
      }
      const serializer = new (xmldom().XMLSerializer)();
      const nodes = selected
        .slice(0, args.limit)
        .map((node: Node) => describeNode(node, serializer));
      const truncated = selected.length > args.limit;
      const data = { kind: 'nodes', count: selected.length, truncated, nodes, ...extra };
      return successResult(renderNodes(nodes, selected.length, truncated), { data });
    },
  });
}

function parseXml(xml: string, warnings: string[]): Node {
  const parser = new (xmldom().DOMParser)({
    onError(level, message) {
      if (level === 'fatalError') throw new Error(message);
      warnings.push(`${level}: ${message.split('\n')[0]}`);
    },
  });
  try {
    return parser.parseFromString(xml, 'text/xml') as unknown as Node;
  } catch (error) {
    const message = (error as Error).message.split('\n')[0] ?? 'unreadable document';
    throw invalidArgument('xml', `not well-formed XML: ${message}`, 'Fix the document and retry.');
  }
}

function describeNode(node: Node, serializer: XMLSerializer): ExtractedNode {
  const type = NODE_TYPES[node.nodeType] ?? 'node';
  const described: ExtractedNode = { type, value: nodeValue(node) };
  if (node.nodeType === 1 || node.nodeType === 2 || node.nodeType === 7) {
    described.name = node.nodeName;
  }
  if (node.nodeType === 1) {
    const xml = serializer.serializeToString(node as never);
    described.xml =
      xml.length > MAX_NODE_XML_LENGTH ? `${xml.slice(0, MAX_NODE_XML_LENGTH)}…` : xml;
  }
  return described;
}

function nodeValue(node: Node): string {
  if (node.nodeType === 2) return (node as Attr).value;
  return node.textContent ?? '';
}

function renderNodes(nodes: ExtractedNode[], total: number, truncated: boolean): string {
  if (total === 0) return 'No nodes match.';
  const lines = [
    `${total} node${total === 1 ? '' : 's'}${truncated ? ` (showing ${nodes.length})` : ''}:`,
  ];
  let length = 0;
  for (const node of nodes) {
    const label = node.name ? `${node.type} ${node.name}` : node.type;
    const line = `- ${label}: ${JSON.stringify(node.value)}`;
    length += line.length;
    if (length > MAX_RENDERED_LENGTH) {
      lines.push('… (output shortened; every node is in the structured data)');
      break;
    }
    lines.push(line);
  }
  return lines.join('\n');
}

/** Options for {@link createXmlExtractTools}. */
export interface XmlExtractToolsOptions {
  /** Hard limit on the evaluation time of one expression, in ms; the call ends with TIMEOUT. Default 5000. */
  matchTimeLimitMs?: number;
}

/** `xml_extract`. */
export function createXmlExtractTools(options: XmlExtractToolsOptions = {}): AnyToolDefinition[] {
  return [createXmlExtractTool(options.matchTimeLimitMs ?? DEFAULT_MATCH_TIME_LIMIT_MS)];
}

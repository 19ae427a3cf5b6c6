// What the page-view tools share.
import { ToolHints } from '@toolsys/core-tool-registry';

/** Metadata of the page-view tools: low risk, read-only. */
export const READ_METADATA = {
  category: 'browser',
  risk: 'LOW',
  tags: ['browser', 'playwright'],
  annotations: ToolHints.readOnly,
} as const;

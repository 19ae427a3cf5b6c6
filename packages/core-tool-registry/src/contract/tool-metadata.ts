/** The sixteen tool categories; catalogs group tools by them, in this order. */
export const TOOL_CATEGORIES = [
  'shell',
  'file',
  'network',
  'memory',
  'app',
  'system',
  'ui',
  'media',
  'utility',
  'data',
  'skill',
  'mcp',
  'orchestration',
  'browser',
  'github',
  'terminal',
] as const;

/** One of the sixteen {@link TOOL_CATEGORIES}. */
export type ToolCategory = (typeof TOOL_CATEGORIES)[number];

/** Risk levels, lowest first. */
export const TOOL_RISKS = ['LOW', 'MEDIUM', 'HIGH'] as const;

/** How much harm a call can do: LOW runs freely, MEDIUM and HIGH go through the risk gate. */
export type ToolRisk = (typeof TOOL_RISKS)[number];

/** MCP tool hints plus `sensitiveAction`. */
export interface ToolAnnotations {
  /** The tool does not change its environment. */
  readonly readOnlyHint: boolean;
  /** The tool may destroy or overwrite data (meaningful when not read-only). */
  readonly destructiveHint: boolean;
  /** Calling again with the same arguments has no further effect. */
  readonly idempotentHint: boolean;
  /** The tool reaches entities outside the deployment (the web, a device, a remote API). */
  readonly openWorldHint: boolean;
  /** The action touches something a user would want to approve (money, messages, installs). */
  readonly sensitiveAction: boolean;
}

/** Everything a tool says about itself besides its schema and its function. */
export interface ToolMetadata {
  readonly category: ToolCategory;
  readonly risk: ToolRisk;
  readonly tags: readonly string[];
  readonly annotations: ToolAnnotations;
}

/** What a tool may declare; anything left out is inferred from the id. */
export interface ToolMetadataInput {
  category?: ToolCategory;
  risk?: ToolRisk;
  tags?: readonly string[];
  annotations?: Partial<ToolAnnotations>;
}

/** Whether a call with these annotations may be replayed with the same payload. */
export function isRetrySafe(annotations: ToolAnnotations): boolean {
  return annotations.readOnlyHint || annotations.idempotentHint;
}

/** Compares risks: negative when `a` is lower than `b`. */
export function compareRisk(a: ToolRisk, b: ToolRisk): number {
  return TOOL_RISKS.indexOf(a) - TOOL_RISKS.indexOf(b);
}

/** The highest of the given risks (LOW for none). */
export function maxRisk(risks: Iterable<ToolRisk>): ToolRisk {
  let worst: ToolRisk = 'LOW';
  for (const risk of risks) if (compareRisk(risk, worst) > 0) worst = risk;
  return worst;
}

const DATA_TOOLS = new Set([
  'regex_extract',
  'regex_replace',
  'text_diff',
  'json_path',
  'xml_extract',
  'csv_query',
  'base_convert',
  'unit_convert',
  'duration_convert',
  'string_distance',
  'random_generate',
  'uuid_generate',
  'file_hash',
  'datetime',
  'cron_next',
  'json_transform',
  'version_compare',
]);

const CATEGORY_BY_ID: Record<string, ToolCategory> = {
  shell_execute: 'shell',
  web_fetch: 'network',
  web_search: 'network',
  http_request: 'network',
  download_file: 'network',
  memorize: 'memory',
  recall: 'memory',
  forget: 'memory',
  get_device_info: 'system',
  get_set_settings: 'system',
  clipboard: 'system',
  get_time: 'system',
  logcat: 'system',
  get_location: 'system',
  notification_read: 'system',
  control_media: 'media',
  screenshot: 'ui',
  input_text: 'ui',
  calculate: 'utility',
  text_transform: 'utility',
  wait: 'orchestration',
  tool_batch_run: 'orchestration',
};

const FILE_TOOLS = new Set([
  'read_file',
  'write_file',
  'edit_file',
  'list_files',
  'glob_files',
  'search_files',
  'copy_move_file',
  'delete_file',
]);

/** Infers the category of a tool from its id. */
export function inferCategory(id: string): ToolCategory {
  const direct = CATEGORY_BY_ID[id];
  if (direct) return direct;
  if (FILE_TOOLS.has(id)) return 'file';
  if (DATA_TOOLS.has(id)) return 'data';
  if (id.startsWith('terminal.')) return 'terminal';
  if (id.startsWith('shortcut.') || id.startsWith('shortcut_')) return 'orchestration';
  if (id.startsWith('memory_')) return 'memory';
  if (id.startsWith('app_')) return 'app';
  if (id.startsWith('ui_')) return 'ui';
  if (id.startsWith('skill_')) return 'skill';
  if (id.startsWith('mcp_')) return 'mcp';
  if (id.startsWith('browser_')) return 'browser';
  if (id.startsWith('github_')) return 'github';
  return 'utility';
}

const HIGH_RISK = new Set([
  'shell_execute',
  'delete_file',
  'app_install',
  'app_uninstall',
  'skill_install',
  'terminal.run',
  'terminal.write',
  'terminal.linux_bootstrap',
  'terminal.ubuntu_install',
  'terminal.ubuntu.ensure',
]);

const MEDIUM_RISK = new Set([
  'write_file',
  'edit_file',
  'copy_move_file',
  'http_request',
  'download_file',
  'forget',
  'app_launch',
  'app_force_stop',
  'get_set_settings',
  'control_media',
  'clipboard',
  'ui_tap',
  'ui_swipe',
  'input_text',
  'browser_click',
  'browser_input',
  'browser_select',
  'browser_toggle',
  'browser_date_input',
  'browser_file_upload',
  'github_write_file',
  'github_create_issue',
  'terminal.create',
  'terminal.signal',
  'terminal.close',
  'terminal.linux_packages',
  'terminal.linux_network',
  'skill_create',
  'skill_uninstall',
  'mcp_connect',
  'mcp_call',
  'shortcut_define',
]);

/** Infers the risk of a tool from its id; unknown ids of remote or mutating families are MEDIUM. */
export function inferRisk(id: string): ToolRisk {
  if (HIGH_RISK.has(id)) return 'HIGH';
  if (MEDIUM_RISK.has(id)) return 'MEDIUM';
  if (id.startsWith('mcp__')) return 'MEDIUM';
  return 'LOW';
}

const READ_ONLY = new Set([
  'read_file',
  'list_files',
  'glob_files',
  'search_files',
  'web_fetch',
  'web_search',
  'recall',
  'app_list',
  'app_info',
  'get_device_info',
  'get_time',
  'logcat',
  'ui_dump',
  'screenshot',
  'calculate',
  'text_transform',
  'get_location',
  'notification_read',
  'skill_search',
  'skill_list',
  'mcp_list',
  'wait',
  'shortcut_list',
  'browser_screenshot',
  'browser_snapshot',
  'browser_download_list',
  'browser_context_summary',
  'browser_network_log',
  'browser_debug_dump',
  'github_get_user',
  'github_list_repos',
  'github_read_file',
  'github_list_issues',
  'github_search_code',
  'terminal.observe',
  'terminal.snapshot',
  'terminal.wait',
  'terminal.workspaces',
  'terminal.backends',
  'terminal.linux_status',
  'terminal.ubuntu.status',
]);

const DESTRUCTIVE = new Set([
  'shell_execute',
  'write_file',
  'edit_file',
  'copy_move_file',
  'delete_file',
  'forget',
  'http_request',
  'download_file',
  'app_uninstall',
  'app_install',
  'skill_uninstall',
  'github_write_file',
  'terminal.run',
  'terminal.write',
  'terminal.close',
  'terminal.signal',
  'terminal.linux_bootstrap',
  'terminal.ubuntu_install',
]);

const IDEMPOTENT = new Set([
  'write_file',
  'delete_file',
  'memorize',
  'forget',
  'download_file',
  'app_install',
  'app_uninstall',
  'app_launch',
  'app_force_stop',
  'get_set_settings',
  'clipboard',
  'browser_navigate',
  'browser_select',
  'browser_date_input',
  'browser_file_upload',
  'browser_show',
  'skill_install',
  'skill_create',
  'skill_uninstall',
  'mcp_connect',
  'terminal.resize',
  'terminal.close',
  'terminal.linux_bootstrap',
  'terminal.linux_packages',
  'terminal.ubuntu_install',
  'terminal.ubuntu.ensure',
  'shortcut_define',
]);

const OPEN_WORLD_PREFIXES = ['app_', 'ui_', 'browser_', 'github_', 'mcp_', 'terminal.'];
const OPEN_WORLD = new Set([
  'shell_execute',
  'web_fetch',
  'web_search',
  'http_request',
  'download_file',
  'skill_install',
  'skill_search',
  'get_device_info',
  'get_set_settings',
  'control_media',
  'clipboard',
  'logcat',
  'screenshot',
  'input_text',
  'get_location',
  'notification_read',
]);

const SENSITIVE = new Set([
  'http_request',
  'clipboard',
  'input_text',
  'notification_read',
  'get_location',
  'github_write_file',
  'github_create_issue',
  'mcp_connect',
]);

/** Infers MCP hints for a tool from its id and risk; unknown ids get conservative values. */
export function inferAnnotations(id: string, risk: ToolRisk = inferRisk(id)): ToolAnnotations {
  const category = inferCategory(id);
  const readOnly =
    READ_ONLY.has(id) ||
    (category === 'data' && id !== 'file_hash') ||
    id === 'file_hash' ||
    (id.startsWith('memory_') && category === 'memory');
  const destructive = !readOnly && (DESTRUCTIVE.has(id) || risk === 'HIGH');
  return {
    readOnlyHint: readOnly,
    destructiveHint: destructive,
    idempotentHint: readOnly || IDEMPOTENT.has(id),
    openWorldHint:
      OPEN_WORLD.has(id) || OPEN_WORLD_PREFIXES.some((prefix) => id.startsWith(prefix)),
    sensitiveAction: risk === 'HIGH' || SENSITIVE.has(id),
  };
}

/** Resolves a tool's metadata: explicit declarations win, the rest is inferred from the id. */
export function resolveMetadata(id: string, input: ToolMetadataInput = {}): ToolMetadata {
  const risk = input.risk ?? inferRisk(id);
  return {
    category: input.category ?? inferCategory(id),
    risk,
    tags: [...(input.tags ?? [])],
    annotations: { ...inferAnnotations(id, risk), ...input.annotations },
  };
}

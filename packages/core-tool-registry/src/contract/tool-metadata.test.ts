import { describe, expect, it } from 'vitest';
import {
  compareRisk,
  inferAnnotations,
  inferCategory,
  inferRisk,
  isRetrySafe,
  resolveMetadata,
  type ToolCategory,
} from './tool-metadata.js';

/** Every tool id listed in SPEC.md, with the category its group implies. */
const SPEC_IDS: Record<ToolCategory, readonly string[]> = {
  shell: ['shell_execute'],
  file: [
    'read_file',
    'write_file',
    'edit_file',
    'list_files',
    'glob_files',
    'search_files',
    'copy_move_file',
    'delete_file',
  ],
  network: ['web_fetch', 'web_search', 'http_request', 'download_file'],
  memory: [
    'memorize',
    'recall',
    'forget',
    'memory_search_nodes',
    'memory_recent_episodes',
    'memory_recall_macro',
  ],
  app: ['app_list', 'app_launch', 'app_install', 'app_uninstall', 'app_force_stop', 'app_info'],
  system: [
    'get_time',
    'get_device_info',
    'get_set_settings',
    'clipboard',
    'logcat',
    'get_location',
    'notification_read',
  ],
  ui: ['ui_tap', 'ui_swipe', 'ui_dump', 'screenshot', 'input_text'],
  media: ['control_media'],
  utility: ['calculate', 'text_transform'],
  data: [
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
  ],
  skill: ['skill_search', 'skill_install', 'skill_create', 'skill_list', 'skill_uninstall'],
  mcp: ['mcp_connect', 'mcp_list', 'mcp_call'],
  orchestration: ['wait', 'tool_batch_run', 'shortcut_define', 'shortcut_list', 'shortcut_run'],
  browser: [
    'browser_navigate',
    'browser_click',
    'browser_input',
    'browser_scroll',
    'browser_select',
    'browser_screenshot',
    'browser_snapshot',
    'browser_toggle',
    'browser_show',
    'browser_download_list',
    'browser_file_upload',
    'browser_date_input',
    'browser_context_summary',
    'browser_network_log',
    'browser_debug_dump',
  ],
  github: [
    'github_get_user',
    'github_list_repos',
    'github_read_file',
    'github_write_file',
    'github_create_issue',
    'github_list_issues',
    'github_search_code',
  ],
  terminal: [
    'terminal.create',
    'terminal.run',
    'terminal.write',
    'terminal.observe',
    'terminal.snapshot',
    'terminal.wait',
    'terminal.resize',
    'terminal.signal',
    'terminal.close',
    'terminal.workspaces',
    'terminal.backends',
    'terminal.linux_bootstrap',
    'terminal.linux_status',
    'terminal.linux_packages',
    'terminal.linux_network',
    'terminal.ubuntu_install',
    'terminal.ubuntu.ensure',
    'terminal.ubuntu.status',
  ],
};

const ALL_IDS = Object.values(SPEC_IDS).flat();

describe('metadata inference over every id in SPEC.md', () => {
  it('covers the 110 ids of the spec', () => {
    expect(new Set(ALL_IDS).size).toBe(ALL_IDS.length);
    expect(ALL_IDS.length).toBe(110);
  });

  for (const [category, ids] of Object.entries(SPEC_IDS)) {
    it.each(ids)(`%s is inferred as ${category}`, (id) => {
      expect(inferCategory(id)).toBe(category);
    });
  }

  it.each(ALL_IDS)('%s has consistent annotations', (id) => {
    const risk = inferRisk(id);
    const annotations = inferAnnotations(id, risk);
    // A read-only tool destroys nothing; read-only implies idempotent.
    if (annotations.readOnlyHint) {
      expect(annotations.destructiveHint).toBe(false);
      expect(annotations.idempotentHint).toBe(true);
    }
    // Destructive operations are at least MEDIUM risk (spec checklist).
    if (annotations.destructiveHint) expect(compareRisk(risk, 'MEDIUM')).toBeGreaterThanOrEqual(0);
    // HIGH risk is always sensitive and never read-only.
    if (risk === 'HIGH') {
      expect(annotations.sensitiveAction).toBe(true);
      expect(annotations.readOnlyHint).toBe(false);
    }
  });

  it.each([
    'read_file',
    'list_files',
    'web_fetch',
    'recall',
    'json_transform',
    'version_compare',
    'wait',
    'github_read_file',
    'terminal.snapshot',
    'memory_search_nodes',
    'write_file',
    'delete_file',
    'browser_navigate',
  ])('%s is retry-safe', (id) => {
    expect(isRetrySafe(inferAnnotations(id))).toBe(true);
  });

  it.each([
    'shell_execute',
    'http_request',
    'edit_file',
    'copy_move_file',
    'input_text',
    'ui_tap',
    'browser_click',
    'github_create_issue',
    'terminal.run',
    'terminal.write',
    'mcp_call',
    'tool_batch_run',
    'shortcut_run',
  ])('%s is not retry-safe (replaying may repeat its effect)', (id) => {
    expect(isRetrySafe(inferAnnotations(id))).toBe(false);
  });

  it.each([
    ['shell_execute', 'HIGH'],
    ['delete_file', 'HIGH'],
    ['app_uninstall', 'HIGH'],
    ['write_file', 'MEDIUM'],
    ['http_request', 'MEDIUM'],
    ['read_file', 'LOW'],
    ['json_transform', 'LOW'],
  ] as const)('%s is %s risk', (id, risk) => {
    expect(inferRisk(id)).toBe(risk);
  });

  it('explicit declarations win over inference', () => {
    const metadata = resolveMetadata('read_file', {
      risk: 'HIGH',
      category: 'utility',
      annotations: { readOnlyHint: false, idempotentHint: false },
    });
    expect(metadata.risk).toBe('HIGH');
    expect(metadata.category).toBe('utility');
    expect(metadata.annotations.readOnlyHint).toBe(false);
    expect(isRetrySafe(metadata.annotations)).toBe(false);
  });

  it('unknown ids get conservative values', () => {
    expect(inferAnnotations('frobnicate')).toEqual({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
      sensitiveAction: false,
    });
    expect(inferRisk('mcp__server__tool')).toBe('MEDIUM');
    expect(inferCategory('shortcut.backup')).toBe('orchestration');
  });
});

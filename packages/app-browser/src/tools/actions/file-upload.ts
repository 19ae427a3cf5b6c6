import { stat } from 'node:fs/promises';
import {
  type AnyToolDefinition,
  failureResult,
  ToolErrorCode,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { resolveWorkspacePath } from '@toolsys/platform';
import { z } from 'zod';
import { type BrowserToolSettings, tabField } from '../browser-tool.js';
import {
  ACTION_ANNOTATIONS,
  assertEnabled,
  defineTargetTool,
  PAGE_ACTION_METADATA,
  refField,
  reportDone,
  snapshotField,
  tagName,
} from './shared.js';

const uploadSchema = ToolSchema.object({
  ref: refField,
  paths: z.array(z.string().min(1).max(4_096)).min(1).max(20).describe('Workspace-relative paths.'),
  tab: tabField,
  snapshot: snapshotField,
});

/** `browser_file_upload`: uploads workspace files through a file input. */
export function createFileUploadTool(settings: BrowserToolSettings): AnyToolDefinition {
  return defineTargetTool(settings, {
    id: 'browser_file_upload',
    description: 'Uploads workspace files through a file input by ref.',
    inputSchema: uploadSchema,
    metadata: {
      ...PAGE_ACTION_METADATA,
      annotations: { ...ACTION_ANNOTATIONS, sensitiveAction: true },
    },
    // Only a target that is clicked must be enabled; a file input is given its files directly.
    checksEnabled: true,
    async act(args, target, call) {
      const files: string[] = [];
      for (const [index, path] of args.paths.entries()) {
        const field = `paths.${index}`;
        const resolved = await resolveWorkspacePath(call.settings.workspaceRoot, path, { field });
        const info = resolved.exists ? await stat(resolved.absolute) : undefined;
        if (!info?.isFile()) {
          return failureResult(
            ToolErrorCode.NOT_FOUND,
            `${field}: "${path}" is not a file in the workspace`,
            {
              field,
              hint: 'Check the path with list_files; paths are relative to the workspace root.',
            },
          );
        }
        files.push(resolved.absolute);
      }
      const { tag, type } = await tagName(target.locator);
      const timeout = call.settings.actionTimeoutMs;
      if (tag === 'input' && type === 'file') {
        await target.locator.setInputFiles(files, { timeout });
      } else {
        await assertEnabled(target);
        const chooser = target.tab.page.waitForEvent('filechooser', { timeout });
        await target.locator.click({ timeout });
        let fileChooser: Awaited<typeof chooser>;
        try {
          fileChooser = await chooser;
        } catch {
          return failureResult(
            ToolErrorCode.INVALID_ARGUMENT,
            `ref: clicking ${target.label} opened no file chooser`,
            {
              field: 'ref',
              hint: 'Pass the ref of the file input or of the button that opens the file dialog.',
            },
          );
        }
        await fileChooser.setFiles(files, { timeout });
      }
      const names = args.paths.map((path) => JSON.stringify(path)).join(', ');
      return reportDone(call, target, `Attached ${names} to ${target.label}.`, args.snapshot);
    },
  });
}

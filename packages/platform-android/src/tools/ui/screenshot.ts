import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type AnyToolDefinition,
  failureResult,
  RunPolicies,
  successResult,
  type ToolEnvironmentRule,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { artifactFileName } from '@toolsys/platform';
import { z } from 'zod';
import type { AndroidToolSession } from '../../android-session.js';
import { SCREEN_RULES } from '../../device-telemetry.js';
import { decodePng, downscale, encodePng, isAllBlack, isPng } from '../../png-image.js';
import { defineDeviceTool, serialField } from '../device-tool.js';

/** The `screenshot` tool. */
export function createScreenshotTool(session: AndroidToolSession): AnyToolDefinition {
  return defineDeviceTool(session, {
    id: 'screenshot',
    description:
      'Captures the Android screen as a PNG under the data dir (scaled so the longer side is at most maxSide) and returns its path. Says when the window is secure (FLAG_SECURE) and the capture is black; then use ui_dump to read the screen.',
    inputSchema: ToolSchema.object({
      maxSide: z
        .number()
        .int()
        .min(200)
        .max(4000)
        .default(1280)
        .describe('Longest side of the saved image in pixels (200-4000).'),
      serial: serialField,
    }),
    outputSchema: ToolSchema.object({
      path: z.string(),
      uri: z.string(),
      mimeType: z.literal('image/png'),
      width: z.number(),
      height: z.number(),
      black: z.boolean(),
      secureWindow: z.boolean(),
      backend: z.enum(['adb', 'appium']),
    }),
    metadata: {
      category: 'ui',
      risk: 'LOW',
      tags: ['ui', 'screenshot'],
      annotations: { ...ToolHints.readOnly, sensitiveAction: true },
    },
    runPolicy: RunPolicies.quickRead,
    environmentRules: [SCREEN_RULES[0] as ToolEnvironmentRule],
    async execute(args, { device, signal, session: shared }) {
      const telemetry = await shared.telemetry(device, { signal });
      const { value: bytes, backend } = await shared.withUiBackend(device.serial, (ui) =>
        ui.screenshot(device, { signal, timeoutMs: 30_000 }),
      );
      if (device.cutOutputs.some((cut) => cut.command.startsWith('screencap'))) {
        return failureResult(
          ToolErrorCode.EXECUTION_FAILED,
          'screencap sent more bytes than a screenshot can have; reading stopped and nothing was saved.',
          { hint: 'Retry once; if it happens again, read the screen with ui_dump instead.' },
        );
      }
      if (!isPng(bytes)) {
        return failureResult(
          ToolErrorCode.EXECUTION_FAILED,
          `screencap returned no PNG: ${bytes.subarray(0, 200).toString('utf8').trim() || 'no output'}`,
          {
            hint: 'Retry once; if the screen is off, turn it on first.',
          },
        );
      }
      const decoded = decodePng(bytes);
      const black = decoded ? isAllBlack(decoded) : false;
      const image = decoded ? downscale(decoded, args.maxSide) : undefined;
      const png = image && image !== decoded ? encodePng(image) : bytes;
      const directory = join(shared.dataDir, 'android');
      await mkdir(directory, { recursive: true });
      const name = `${artifactFileName('screenshot', device.serial)}.png`;
      const path = join(directory, name);
      await writeFile(path, png);
      const secure = telemetry.secureWindow === true;
      const width = image?.width ?? bytes.readUInt32BE(16);
      const height = image?.height ?? bytes.readUInt32BE(20);
      let warning = '';
      if (black && secure)
        warning =
          ' The window is secure (FLAG_SECURE): Android blanks it in captures, so the image is black. Use ui_dump to read the screen.';
      else if (black && telemetry.screenOn === false)
        warning = ' The screen is off, so the image is black; turn it on first.';
      else if (black)
        warning =
          ' The image is entirely black (a secure surface such as video or DRM content, or a dark screen). Use ui_dump to read the screen.';
      else if (secure)
        warning = ' The focused window is marked secure; parts of the image may be blank.';
      return successResult(
        `Saved a ${width}x${height} screenshot of ${device.serial} (via ${backend}) to ${path}.${warning}`,
        {
          artifacts: [
            {
              path,
              mimeType: 'image/png',
              description: `A ${width}x${height} screenshot of ${device.serial}${black ? ' (black)' : ''}`,
            },
          ],
          data: {
            path,
            uri: `file://${path}`,
            mimeType: 'image/png',
            width,
            height,
            black,
            secureWindow: secure,
            backend,
          },
        },
      );
    },
  });
}

import {
  type AnyToolDefinition,
  failureResult,
  RunPolicies,
  successResult,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import type { AndroidToolSession } from '../../android-session.js';
import { parseLocations } from '../../parsers/location.js';
import { defineDeviceTool, serialField } from '../device-tool.js';

/** The `get_location` tool. */
export function createGetLocationTool(session: AndroidToolSession): AnyToolDefinition {
  return defineDeviceTool(session, {
    id: 'get_location',
    description:
      "Returns the device's last known location (latitude, longitude, accuracy) per provider from the location service. It does not request a new fix; if none is known, location is off or no app asked for one recently.",
    inputSchema: ToolSchema.object({ serial: serialField }),
    outputSchema: ToolSchema.object({
      latitude: z.number(),
      longitude: z.number(),
      provider: z.string(),
      accuracyMeters: z.number().optional(),
    }),
    metadata: {
      category: 'system',
      risk: 'LOW',
      tags: ['location'],
      annotations: { ...ToolHints.readOnly, sensitiveAction: true },
    },
    runPolicy: RunPolicies.quickRead,
    async execute(_args, { device, signal }) {
      const locations = parseLocations(await device.shell('dumpsys location', { signal }));
      const best =
        locations.find((location) => location.provider === 'fused') ??
        locations.find((location) => location.provider === 'gps') ??
        locations[0];
      if (!best) {
        return failureResult(ToolErrorCode.NOT_FOUND, 'The device has no last known location.', {
          hint: 'Location may be off, or no app has asked for a fix recently; open a maps app (app_launch) and retry.',
        });
      }
      return successResult(
        `${best.latitude}, ${best.longitude} (${best.provider}${best.accuracyMeters === undefined ? '' : `, ±${best.accuracyMeters} m`})`,
        { data: best },
      );
    },
  });
}

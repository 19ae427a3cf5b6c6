import {
  type AnyToolDefinition,
  RunPolicies,
  successResult,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import type { AndroidToolSession } from '../../android-session.js';
import { parseGetprop, parseWmDensity, parseWmSize } from '../../parsers/device-state.js';
import { defineDeviceTool, serialField } from '../device-tool.js';

/** The `get_device_info` tool. */
export function createGetDeviceInfoTool(session: AndroidToolSession): AnyToolDefinition {
  return defineDeviceTool(session, {
    id: 'get_device_info',
    description:
      'Describes the Android device: model, manufacturer, Android version and SDK, screen size and density, battery level, and its state now (screen on, locked, keyboard shown, foreground app, secure window). Call it first to check the device is usable.',
    inputSchema: ToolSchema.object({ serial: serialField }),
    outputSchema: ToolSchema.object({
      serial: z.string(),
      model: z.string().optional(),
      manufacturer: z.string().optional(),
      androidVersion: z.string().optional(),
      sdk: z.number().optional(),
      screen: z
        .object({ width: z.number(), height: z.number(), density: z.number().optional() })
        .optional(),
      batteryLevel: z.number().optional(),
      screenOn: z.boolean().optional(),
      locked: z.boolean().optional(),
      keyboardShown: z.boolean().optional(),
      secureWindow: z.boolean().optional(),
      foregroundPackage: z.string().optional(),
    }),
    metadata: { category: 'system', risk: 'LOW', annotations: ToolHints.readOnly },
    runPolicy: RunPolicies.quickRead,
    async execute(_args, { device, signal, session: shared }) {
      const [props, size, density, battery, telemetry] = await Promise.all([
        device.shell('getprop', { signal }),
        device.shell('wm size', { signal }),
        device.shell('wm density', { signal }),
        device.shell('dumpsys battery', { signal }),
        shared.telemetry(device, { signal }),
      ]);
      const properties = parseGetprop(props);
      const screen = parseWmSize(size);
      const dpi = parseWmDensity(density);
      const level = /^\s*level: (\d+)/m.exec(battery)?.[1];
      const data = {
        serial: device.serial,
        model: properties.get('ro.product.model'),
        manufacturer: properties.get('ro.product.manufacturer'),
        androidVersion: properties.get('ro.build.version.release'),
        sdk: properties.has('ro.build.version.sdk')
          ? Number(properties.get('ro.build.version.sdk'))
          : undefined,
        screen: screen ? { ...screen, ...(dpi === undefined ? {} : { density: dpi }) } : undefined,
        batteryLevel: level === undefined ? undefined : Number(level),
        screenOn: telemetry.screenOn,
        locked: telemetry.locked,
        keyboardShown: telemetry.keyboardShown,
        secureWindow: telemetry.secureWindow,
        foregroundPackage: telemetry.foreground?.packageName,
      };
      const yesNo = (value: boolean | undefined) =>
        value === undefined ? 'unknown' : value ? 'yes' : 'no';
      const lines = [
        `${data.manufacturer ?? ''} ${data.model ?? 'unknown model'} (${device.serial}), Android ${data.androidVersion ?? '?'} (SDK ${data.sdk ?? '?'})`.trim(),
        `screen: ${screen ? `${screen.width}x${screen.height}` : 'unknown'}${dpi === undefined ? '' : ` @ ${dpi} dpi`}; battery: ${data.batteryLevel === undefined ? 'unknown' : `${data.batteryLevel}%`}`,
        `state: screen on ${yesNo(data.screenOn)}, locked ${yesNo(data.locked)}, keyboard shown ${yesNo(data.keyboardShown)}, secure window ${yesNo(data.secureWindow)}`,
        `foreground: ${telemetry.foreground ? `${telemetry.foreground.packageName}${telemetry.foreground.activity ? ` (${telemetry.foreground.activity})` : ''}` : 'unknown'}`,
      ];
      return successResult(lines.join('\n'), { data: JSON.parse(JSON.stringify(data)) });
    },
  });
}

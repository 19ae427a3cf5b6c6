import { createToolExecutor, ToolRegistry } from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { androidConfigSchema, toolPackage } from './tool-package.js';

/** Creates the package in gate mode, which needs no device, with `config`. */
function createInGateMode(config: Parameters<typeof toolPackage.create>[0]['config'] = {}) {
  const registry = new ToolRegistry();
  return toolPackage.create({
    config,
    workspaceRoot: '/nonexistent/workspace',
    dataDir: '/nonexistent/data',
    configDir: '/nonexistent',
    env: {},
    registry,
    executor: createToolExecutor({ registry }),
    mode: 'gate',
  });
}

describe('toolPackage', () => {
  it('is keyed platform-android and builds the 18 tools in gate mode without a device', async () => {
    const contribution = await createInGateMode();
    expect(toolPackage.key).toBe('platform-android');
    expect(contribution.tools).toHaveLength(18);
    expect(new Set(contribution.tools.map((tool) => tool.id)).size).toBe(18);
  });

  it('declares install and uninstall HIGH, uninstall destructive, settings MEDIUM', async () => {
    const { tools } = await createInGateMode();
    const byId = new Map(tools.map((tool) => [tool.id, tool.metadata]));
    expect(byId.get('app_install')?.risk).toBe('HIGH');
    expect(byId.get('app_uninstall')).toMatchObject({
      risk: 'HIGH',
      annotations: { destructiveHint: true },
    });
    expect(byId.get('get_set_settings')?.risk).toBe('MEDIUM');
    expect(byId.get('ui_dump')?.annotations?.readOnlyHint).toBe(true);
  });

  it('rejects unknown and mistyped config keys', () => {
    expect(androidConfigSchema.safeParse({ serial: 'abc', adbServerPort: 5037 }).success).toBe(
      true,
    );
    expect(androidConfigSchema.safeParse({ seriall: 'abc' }).success).toBe(false);
    expect(androidConfigSchema.safeParse({ adbServerPort: 'x' }).success).toBe(false);
  });

  it('accepts the UI backend keys and rejects a bad backend or URL', () => {
    expect(
      androidConfigSchema.safeParse({
        ui: 'appium',
        appiumUrl: 'http://127.0.0.1:4723',
        appiumCapabilities: { 'appium:systemPort': 8210 },
      }).success,
    ).toBe(true);
    expect(androidConfigSchema.safeParse({ ui: 'auto', appiumStart: false }).success).toBe(true);
    expect(androidConfigSchema.safeParse({ ui: 'espresso' }).success).toBe(false);
    expect(androidConfigSchema.safeParse({ appiumUrl: 'not a url' }).success).toBe(false);
  });

  it('builds the Appium backend in gate mode without starting Appium', async () => {
    const contribution = await createInGateMode({ ui: 'appium' });
    expect(contribution.tools).toHaveLength(18);
    await contribution.dispose?.();
  });

  it('refuses ui appium with local start off and no URL', async () => {
    await expect(createInGateMode({ ui: 'appium', appiumStart: false })).rejects.toThrow(
      'ui "appium" with appiumStart false needs appiumUrl',
    );
  });
});

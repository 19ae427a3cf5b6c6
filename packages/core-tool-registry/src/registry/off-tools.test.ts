import { describe, expect, it } from 'vitest';
import { renderResult } from '../contract/tool-result.js';
import { createTestExecutor } from '../testing/test-executor.js';
import { defineTestTool } from '../testing/test-tool.js';
import { ToolRegistry } from './tool-registry.js';

const GITHUB_OFF = {
  owner: '@toolsys/app-github',
  reason: 'no GitHub token (GITHUB_TOKEN is not set)',
  hint: 'Ask the user to set GITHUB_TOKEN and restart the server.',
};

describe('off tools', () => {
  it('tells a call of an off tool why it is off and how to turn it on', async () => {
    const registry = new ToolRegistry();
    registry.off.add([{ id: 'github_get_user', ...GITHUB_OFF }]);
    const executor = createTestExecutor({ registry });
    const result = await executor.execute('github_get_user', {});
    expect(renderResult(result)).toBe(
      'Error: [UNSUPPORTED] github_get_user is off in this deployment (@toolsys/app-github): no GitHub token (GITHUB_TOKEN is not set)\nNext: Ask the user to set GITHUB_TOKEN and restart the server. Until then, use another tool.',
    );
    expect(!result.ok && result.error.details).toEqual({
      toolId: 'github_get_user',
      owner: '@toolsys/app-github',
      off: true,
    });
  });

  it('reads a source once, on the first miss, and still answers NOT_FOUND for unknown ids', async () => {
    const registry = new ToolRegistry();
    let reads = 0;
    registry.off.addSource(async () => {
      reads += 1;
      return [{ id: 'github_list_repos', ...GITHUB_OFF }];
    });
    registry.off.addSource(async () => {
      throw new Error('the package could not list its tools');
    });
    const executor = createTestExecutor({ registry });
    expect(reads).toBe(0);
    const unknown = await executor.execute('no_such_tool', {});
    expect(!unknown.ok && unknown.error.code).toBe('NOT_FOUND');
    const off = await executor.execute('github_list_repos', {});
    expect(!off.ok && off.error.code).toBe('UNSUPPORTED');
    expect((await registry.off.list()).map((tool) => tool.id)).toEqual(['github_list_repos']);
    expect(reads).toBe(1);
  });

  it('never reports off a tool that is registered now', async () => {
    const registry = new ToolRegistry();
    registry.off.add([{ id: 'github_get_user', ...GITHUB_OFF }]);
    registry.register(defineTestTool({ id: 'github_get_user', execute: () => 'octocat' }));
    expect(await registry.off.find('github_get_user')).toBeUndefined();
    expect(await registry.off.list()).toEqual([]);
    const executor = createTestExecutor({ registry });
    expect(renderResult(await executor.execute('github_get_user', {}))).toBe('octocat');
  });

  it('lists a served tool as off while its package marks it away, and runs calls of it still', async () => {
    const registry = new ToolRegistry();
    registry.register(defineTestTool({ id: 'get_device_info', execute: () => 'Pixel 7' }));
    const away = {
      id: 'get_device_info',
      owner: '@toolsys/platform-android',
      reason: 'its device is not connected',
      hint: 'Connect the device.',
    };
    registry.off.markAway([away, { ...away, id: 'app_list' }]);
    // Only served ids are reported away: app_list is not registered here.
    expect(await registry.off.list()).toEqual([away]);
    expect(await registry.off.find('get_device_info')).toEqual(away);
    expect([registry.off.isAway('get_device_info'), registry.off.isAway('app_list')]).toEqual([
      true,
      false,
    ]);
    const executor = createTestExecutor({ registry });
    expect(renderResult(await executor.execute('get_device_info', {}))).toBe('Pixel 7');
    registry.off.markBack(['get_device_info']);
    expect(await registry.off.list()).toEqual([]);
    expect(await registry.off.find('get_device_info')).toBeUndefined();
    expect(registry.off.isAway('get_device_info')).toBe(false);
  });
});

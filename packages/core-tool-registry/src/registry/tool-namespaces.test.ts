import { describe, expect, it } from 'vitest';
import { isToolVisibleTo, principalKey } from '../contract/handle-owner.js';
import { ToolErrorCode } from '../contract/tool-error.js';
import { failureResult, successResult } from '../contract/tool-result.js';
import { createToolExecutor } from '../pipeline/pipeline-tool-executor.js';
import { ToolCircuitBreaker } from '../policies/circuit-breaker.js';
import { defineTestTool } from '../testing/test-tool.js';
import type { RegistryChange } from './tool-registry.js';
import { ToolRegistry } from './tool-registry.js';

const alice = { id: 'alice', kind: 'token', scopes: ['*'] } as const;
const bob = { id: 'bob', kind: 'token', scopes: ['*'] } as const;

function tool(id: string, text: string, definedBy?: string) {
  return defineTestTool({
    id,
    description: `${text}.`,
    ...(definedBy === undefined ? {} : { definedBy }),
    execute: () => successResult(text),
  });
}

describe('run-time tools of a principal', () => {
  it('are seen, listed and called by their definer only', async () => {
    const registry = new ToolRegistry();
    registry.register(tool('shared_tool', 'shared'));
    registry.register(tool('shortcut.mine', 'alice’s', principalKey(alice)));
    expect(registry.ids(alice)).toEqual(['shared_tool', 'shortcut.mine']);
    expect(registry.ids(bob)).toEqual(['shared_tool']);
    expect(registry.ids()).toEqual(['shared_tool']);
    expect(registry.get('shortcut.mine', bob)).toBeUndefined();
    expect(registry.has('shortcut.mine', alice)).toBe(true);
    expect(registry.list(bob).map((listed) => listed.id)).toEqual(['shared_tool']);
    expect(registry.groupByCategory(bob).flatMap((group) => group.tools)).toHaveLength(1);
    const registered = registry.get('shortcut.mine', alice);
    expect(registered && isToolVisibleTo(registered, alice)).toBe(true);
    expect(registered && isToolVisibleTo(registered, bob)).toBe(false);
    expect(registered?.definedBy).toBe('token:alice');
  });

  it('answer another principal’s call exactly as an unknown id does', async () => {
    const registry = new ToolRegistry();
    registry.register(tool('shortcut.mine', 'alice’s', principalKey(alice)));
    const executor = createToolExecutor({ registry });
    const asOwner = await executor.execute('shortcut.mine', {}, { principal: alice });
    expect(asOwner.ok && asOwner.content).toBe('alice’s');
    const asOther = await executor.execute('shortcut.mine', {}, { principal: bob });
    const never = createToolExecutor({ registry: new ToolRegistry() });
    const unknown = await never.execute('shortcut.mine', {}, { principal: bob });
    expect(asOther.ok).toBe(false);
    expect(!asOther.ok && asOther.error.code).toBe('NOT_FOUND');
    expect(asOther).toEqual(unknown);
    expect(JSON.stringify(asOther)).not.toContain('alice');
  });

  it('live apart under one id: another principal’s definition never replaces the owner’s', () => {
    const registry = new ToolRegistry();
    const changes: RegistryChange[] = [];
    registry.onChange((change) => changes.push(change));
    expect(registry.register(tool('shortcut.same', 'alice’s', principalKey(alice)))).toBe(
      'registered',
    );
    expect(registry.register(tool('shortcut.same', 'bob’s', principalKey(bob)))).toBe('registered');
    expect(registry.get('shortcut.same', alice)?.description).toBe('alice’s.');
    expect(registry.get('shortcut.same', bob)?.description).toBe('bob’s.');
    expect(registry.unregister('shortcut.same', principalKey(bob))).toBe(true);
    expect(registry.get('shortcut.same', alice)?.description).toBe('alice’s.');
    expect(changes.map((change) => change.definedBy)).toEqual([
      'token:alice',
      'token:bob',
      'token:bob',
    ]);
  });

  it('shadow a shared tool of the same id for their definer only', () => {
    const registry = new ToolRegistry();
    registry.register(tool('note', 'shared'));
    registry.register(tool('note', 'alice’s', principalKey(alice)));
    expect(registry.get('note', alice)?.description).toBe('alice’s.');
    expect(registry.get('note', bob)?.description).toBe('shared.');
    expect(registry.ids(alice)).toEqual(['note']);
  });
});

describe('counters of run-time tools of one id', () => {
  it('keep apart: one principal’s failing tool never opens the breaker on another’s', async () => {
    const registry = new ToolRegistry();
    registry.register(
      defineTestTool({
        id: 'shortcut.same',
        description: 'Fails.',
        definedBy: principalKey(alice),
        execute: () => failureResult(ToolErrorCode.EXECUTION_FAILED, 'down'),
      }),
    );
    registry.register(tool('shortcut.same', 'bob’s', principalKey(bob)));
    const executor = createToolExecutor({
      registry,
      circuitBreaker: new ToolCircuitBreaker({ failureThreshold: 2 }),
    });
    for (let index = 0; index < 4; index += 1) {
      await executor.execute('shortcut.same', {}, { principal: alice });
    }
    const alices = await executor.execute('shortcut.same', {}, { principal: alice });
    expect(!alices.ok && alices.error.code).toBe('CIRCUIT_OPEN');
    const bobs = await executor.execute('shortcut.same', {}, { principal: bob });
    expect(bobs.ok && bobs.content).toBe('bob’s');
  });
});

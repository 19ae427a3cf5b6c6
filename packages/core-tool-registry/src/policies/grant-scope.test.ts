import { describe, expect, it } from 'vitest';
import type { CallPrincipal, ConfirmationDecision, ConfirmationRequest } from '../contract/tool.js';
import { type ToolGrantGroup, ToolHints } from '../contract/tool-metadata.js';
import { createToolExecutor } from '../pipeline/pipeline-tool-executor.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { defineTestTool } from '../testing/test-tool.js';
import { grantKey, principalDigest } from './grant-keys.js';
import { RiskAwareToolGate } from './tool-execution-gate.js';
import {
  InMemoryPermissionStore,
  type PermissionDecisionStore,
  ToolPermissionManager,
} from './tool-permission-manager.js';

const ALICE: CallPrincipal = { id: 'alice', kind: 'token', scopes: ['*'] };
const BOB: CallPrincipal = { id: 'bob', kind: 'token', scopes: ['*'] };
const LOCAL: CallPrincipal = { id: 'local', kind: 'local', scopes: [] };
const BROWSER: ToolGrantGroup = { id: 'browser', covers: 'browser actions' };

/** A confirm that answers from a script and records who was asked about what. */
function scripted(...answers: ConfirmationDecision[]) {
  const asked: string[] = [];
  return {
    asked,
    confirm: async (request: ConfirmationRequest) => {
      asked.push(`${request.principal?.id ?? '-'} ${request.sessionId} ${request.toolId}`);
      const answer = answers.shift();
      if (!answer) throw new Error('asked more often than scripted');
      return answer;
    },
  };
}

function request(principal: CallPrincipal | undefined, sessionId = 's1'): ConfirmationRequest {
  return {
    toolId: 'write_file',
    action: 'write_file {}',
    risk: 'MEDIUM',
    sessionId,
    ...(principal ? { principal } : {}),
  };
}

describe('grants belong to the principal who gave them', () => {
  it('keeps a user\'s "always" answer for that user, in every session, and asks another', async () => {
    const ui = scripted('allow_always', 'deny');
    const manager = new ToolPermissionManager({ confirm: ui.confirm });
    await manager.authorize(request(ALICE, 's1'));
    expect(await manager.authorize(request(ALICE, 's9'))).toEqual({ allowed: true, via: 'always' });
    expect((await manager.authorize(request(BOB, 's2'))).allowed).toBe(false);
    expect(ui.asked).toEqual(['alice s1 write_file', 'bob s2 write_file']);
  });

  it('never lets a session grant match the same session id presented by another principal', async () => {
    const ui = scripted('allow_session', 'deny');
    const manager = new ToolPermissionManager({ confirm: ui.confirm });
    await manager.authorize(request(ALICE, 's1'));
    expect(manager.decide('write_file', 'MEDIUM', 's1', false, { principal: ALICE })).toEqual({
      allowed: true,
      via: 'session',
    });
    expect(manager.decide('write_file', 'MEDIUM', 's1', false, { principal: BOB })).toBeUndefined();
    expect((await manager.authorize(request(BOB, 's1'))).allowed).toBe(false);
    expect(ui.asked).toEqual(['alice s1 write_file', 'bob s1 write_file']);
  });

  it("keeps one principal's denial from refusing another in the same session id", async () => {
    const ui = scripted('deny', 'allow_once');
    const manager = new ToolPermissionManager({ confirm: ui.confirm });
    await manager.authorize(request(BOB, 's1'));
    expect(manager.state('s1', 'write_file', { principal: BOB })).toBe('denied_turn');
    expect(manager.state('s1', 'write_file', { principal: ALICE })).toBe('ask');
    expect(await manager.authorize(request(ALICE, 's1'))).toEqual({
      allowed: true,
      via: 'confirmed',
    });
  });

  it('lets the configuration allow a tool for every principal', () => {
    const manager = new ToolPermissionManager({ alwaysAllowed: ['write_file'] });
    for (const principal of [ALICE, BOB, LOCAL, undefined]) {
      expect(manager.decide('write_file', 'MEDIUM', 's1', false, { principal })).toEqual({
        allowed: true,
        via: 'always',
      });
    }
  });

  it('treats a call without a principal as the local user, as before principals existed', async () => {
    const ui = scripted('allow_always');
    const manager = new ToolPermissionManager({ confirm: ui.confirm });
    await manager.authorize(request(undefined));
    expect(manager.state('s2', 'write_file', { principal: LOCAL })).toBe('allowed_always');
    expect(manager.state('s2', 'write_file', { principal: ALICE })).toBe('ask');
  });

  it('persists an "always" answer with the principal it belongs to', async () => {
    const persisted: string[] = [];
    const manager = new ToolPermissionManager({
      confirm: scripted('allow_always').confirm,
      onAlwaysAllow: (toolId, principal) => persisted.push(`${principal?.id} ${toolId}`),
    });
    await manager.authorize(request(ALICE));
    expect(persisted).toEqual(['alice write_file']);
  });

  it('revokes one principal\'s "always" answer without touching another\'s', async () => {
    const manager = new ToolPermissionManager({
      confirm: scripted('allow_always', 'allow_always').confirm,
    });
    await manager.authorize(request(ALICE));
    await manager.authorize(request(BOB));
    manager.revokeAlways('write_file', ALICE);
    expect(manager.state('s1', 'write_file', { principal: ALICE })).toBe('ask');
    expect(manager.state('s1', 'write_file', { principal: BOB })).toBe('allowed_always');
  });

  it('never holds a grant given for one revision of a tool for another', async () => {
    const manager = new ToolPermissionManager({ confirm: scripted('allow_session').confirm });
    await manager.authorize(request(ALICE), undefined, undefined, {
      principal: ALICE,
      revision: 'r1',
    });
    const decide = (revision: string) =>
      manager.decide('write_file', 'MEDIUM', 's1', false, { principal: ALICE, revision });
    expect(decide('r1')).toEqual({ allowed: true, via: 'session' });
    expect(decide('r2')).toBeUndefined();
  });

  it('asks a shared store under keys that name the principal by digest only', async () => {
    const fetched: string[] = [];
    const store = new InMemoryPermissionStore();
    const shared: PermissionDecisionStore = {
      isAllowedAlways: (key) => store.isAllowedAlways(key),
      isAllowedForSession: (sessionId, key) => store.isAllowedForSession(sessionId, key),
      allowAlways: (key) => store.allowAlways(key),
      allowForSession: (sessionId, key) => store.allowForSession(sessionId, key),
      revokeAlways: (key) => store.revokeAlways(key),
      forgetSession: (sessionId) => store.forgetSession(sessionId),
      fetch: async (_sessionId, alwaysKey, sessionKey) => {
        fetched.push(`${alwaysKey} ${sessionKey}`);
        return undefined;
      },
    };
    const manager = new ToolPermissionManager({ confirm: scripted('deny').confirm, store: shared });
    await manager.authorize({ ...request(ALICE), grantGroup: BROWSER });
    const digest = principalDigest(ALICE);
    expect(fetched).toEqual([`${digest}:write_file ${digest}:group:browser`]);
    expect(fetched[0]).not.toContain('alice');
  });
});

describe('grant keys', () => {
  it('differ between principals of different kinds with the same id', () => {
    const oauthAlice: CallPrincipal = { id: 'alice', kind: 'oauth', scopes: [] };
    expect(grantKey(ALICE, 'write_file')).not.toBe(grantKey(oauthAlice, 'write_file'));
  });

  it('keep the bare tool id for the local user', () => {
    expect(grantKey(LOCAL, 'write_file')).toBe('write_file');
    expect(grantKey(undefined, 'write_file')).toBe('write_file');
  });
});

describe('a grant group', () => {
  /** Three browser tools in one group, one HIGH risk tool in it, behind the risk gate. */
  function setUp(...answers: ConfirmationDecision[]) {
    const ui = scripted(...answers);
    const registry = new ToolRegistry();
    for (const id of ['browser_navigate', 'browser_click', 'browser_type']) {
      registry.register(
        defineTestTool({
          id,
          metadata: {
            category: 'browser',
            risk: 'MEDIUM',
            annotations: ToolHints.mutating,
            grantGroup: BROWSER,
          },
          execute: () => 'done',
        }),
      );
    }
    registry.register(
      defineTestTool({
        id: 'browser_upload',
        metadata: {
          category: 'browser',
          risk: 'HIGH',
          annotations: ToolHints.mutating,
          grantGroup: BROWSER,
        },
        execute: () => 'done',
      }),
    );
    const permissions = new ToolPermissionManager({ confirm: ui.confirm });
    const executor = createToolExecutor({ registry, gate: new RiskAwareToolGate(permissions) });
    const call = async (id: string, principal: CallPrincipal, sessionId = 's1') => {
      const result = await executor.execute(id, {}, { principal, sessionId });
      return result.ok ? 'ok' : result.error.code;
    };
    return { ui, call, permissions };
  }

  it('lets one "allow for the session" answer cover every tool of the group', async () => {
    const { ui, call } = setUp('allow_session');
    expect(await call('browser_navigate', ALICE)).toBe('ok');
    expect(await call('browser_click', ALICE)).toBe('ok');
    expect(await call('browser_type', ALICE)).toBe('ok');
    expect(ui.asked).toEqual(['alice s1 browser_navigate']);
  });

  it('covers neither another session nor another principal', async () => {
    const { ui, call } = setUp('allow_session', 'deny', 'deny');
    await call('browser_navigate', ALICE);
    expect(await call('browser_click', ALICE, 's2')).toBe('PERMISSION_DENIED');
    expect(await call('browser_click', BOB, 's1')).toBe('PERMISSION_DENIED');
    expect(ui.asked).toEqual([
      'alice s1 browser_navigate',
      'alice s2 browser_click',
      'bob s1 browser_click',
    ]);
  });

  it('never covers a HIGH risk tool of the group', async () => {
    const { ui, call } = setUp('allow_session', 'deny');
    await call('browser_navigate', ALICE);
    expect(await call('browser_upload', ALICE)).toBe('PERMISSION_DENIED');
    expect(ui.asked).toEqual(['alice s1 browser_navigate', 'alice s1 browser_upload']);
  });

  it('keeps an "always" answer to the one tool it was given for', async () => {
    const { ui, call } = setUp('allow_always', 'deny');
    await call('browser_navigate', ALICE);
    expect(await call('browser_navigate', ALICE, 's2')).toBe('ok');
    expect(await call('browser_click', ALICE, 's2')).toBe('PERMISSION_DENIED');
    expect(ui.asked).toEqual(['alice s1 browser_navigate', 'alice s2 browser_click']);
  });

  it('tells the person asked what the answer covers', async () => {
    const seen: ConfirmationRequest[] = [];
    const registry = new ToolRegistry();
    registry.register(
      defineTestTool({
        id: 'browser_click',
        metadata: {
          category: 'browser',
          risk: 'MEDIUM',
          annotations: ToolHints.mutating,
          grantGroup: BROWSER,
        },
        execute: () => 'done',
      }),
    );
    const permissions = new ToolPermissionManager({
      confirm: async (asked) => {
        seen.push(asked);
        return 'deny';
      },
    });
    const executor = createToolExecutor({ registry, gate: new RiskAwareToolGate(permissions) });
    await executor.execute('browser_click', {}, { principal: ALICE });
    expect(seen[0]?.grantGroup).toEqual(BROWSER);
    expect(seen[0]?.principal).toEqual(ALICE);
  });
});

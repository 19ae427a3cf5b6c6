import { describe, expect, it } from 'vitest';
import type { ConfirmationDecision, ConfirmationRequest } from '../contract/tool.js';
import {
  InMemoryPermissionStore,
  type PermissionDecisionStore,
  ToolPermissionManager,
} from './tool-permission-manager.js';

function request(overrides: Partial<ConfirmationRequest> = {}): ConfirmationRequest {
  return {
    toolId: 'write_file',
    action: 'write_file {}',
    risk: 'MEDIUM',
    sessionId: 's1',
    ...overrides,
  };
}

function scripted(...answers: ConfirmationDecision[]) {
  const asked: ConfirmationRequest[] = [];
  return {
    asked,
    confirm: async (req: ConfirmationRequest) => {
      asked.push(req);
      const answer = answers.shift();
      if (!answer) throw new Error('asked more often than scripted');
      return answer;
    },
  };
}

describe('ToolPermissionManager', () => {
  it('lets LOW risk through without asking', async () => {
    const ui = scripted();
    const manager = new ToolPermissionManager({ confirm: ui.confirm });
    expect(await manager.authorize(request({ risk: 'LOW' }))).toEqual({
      allowed: true,
      via: 'policy',
    });
    expect(ui.asked).toHaveLength(0);
  });

  it('allow once: allowed now, asks again next time (state stays ask)', async () => {
    const ui = scripted('allow_once', 'allow_once');
    const manager = new ToolPermissionManager({ confirm: ui.confirm });
    expect(await manager.authorize(request())).toEqual({ allowed: true, via: 'confirmed' });
    expect(manager.state('s1', 'write_file')).toBe('ask');
    await manager.authorize(request());
    expect(ui.asked).toHaveLength(2);
  });

  it('allow for the session: no more questions in that session, other sessions still ask', async () => {
    const ui = scripted('allow_session', 'deny');
    const manager = new ToolPermissionManager({ confirm: ui.confirm });
    await manager.authorize(request());
    expect(manager.state('s1', 'write_file')).toBe('allowed_session');
    expect(await manager.authorize(request())).toEqual({ allowed: true, via: 'session' });
    expect(ui.asked).toHaveLength(1);
    expect((await manager.authorize(request({ sessionId: 's2' }))).allowed).toBe(false);
  });

  it('always: allowed in every session and persisted through the callback', async () => {
    const persisted: string[] = [];
    const ui = scripted('allow_always');
    const manager = new ToolPermissionManager({
      confirm: ui.confirm,
      onAlwaysAllow: (id) => persisted.push(id),
    });
    await manager.authorize(request());
    expect(manager.state('s9', 'write_file')).toBe('allowed_always');
    expect(await manager.authorize(request({ sessionId: 's9' }))).toEqual({
      allowed: true,
      via: 'always',
    });
    expect(persisted).toEqual(['write_file']);
  });

  it('deny: refused, remembered for the rest of the turn without asking, forgotten next turn', async () => {
    const ui = scripted('deny', 'allow_once');
    const manager = new ToolPermissionManager({ confirm: ui.confirm });
    const first = await manager.authorize(request());
    expect(first).toMatchObject({ allowed: false, reason: 'The user denied write_file.' });
    expect(manager.state('s1', 'write_file')).toBe('denied_turn');
    const second = await manager.authorize(request());
    expect(second).toMatchObject({
      allowed: false,
      reason: 'The user already denied write_file in this turn.',
    });
    expect(ui.asked).toHaveLength(1);
    manager.beginTurn('s1');
    expect(manager.state('s1', 'write_file')).toBe('ask');
    expect((await manager.authorize(request())).allowed).toBe(true);
    expect(ui.asked).toHaveLength(2);
  });

  it('refuses with a hint when nobody can confirm', async () => {
    const manager = new ToolPermissionManager();
    expect(await manager.authorize(request({ risk: 'HIGH', toolId: 'delete_file' }))).toEqual({
      allowed: false,
      reason:
        "delete_file is HIGH risk and needs the user's confirmation, but no one can confirm here.",
      hint: 'Do not retry; use a lower-risk tool. To let delete_file run, the application passes a confirm function to the executor (so the user is asked) or allows it: alwaysAllowed: ["delete_file"], or policy HIGH: "allow", on its ToolPermissionManager.',
    });
  });

  it('treats a failing confirm as a denial', async () => {
    const manager = new ToolPermissionManager({
      confirm: async () => {
        throw new Error('prompt closed');
      },
    });
    expect((await manager.authorize(request())).allowed).toBe(false);
    expect(manager.state('s1', 'write_file')).toBe('denied_turn');
  });

  it('skips the tool-level prompt for a tool that declares it gates itself', () => {
    const manager = new ToolPermissionManager();
    expect(manager.decide('shell_execute', 'HIGH', 's1', true)).toEqual({
      allowed: true,
      via: 'self_gated',
    });
  });

  it('asks for a tool by the id of a self-gating one when the tool does not declare it', async () => {
    const ui = scripted();
    const manager = new ToolPermissionManager({ confirm: ui.confirm });
    for (const toolId of ['shell_execute', 'terminal.run', 'terminal.write']) {
      expect(manager.decide(toolId, 'HIGH', 's1')).toBeUndefined();
    }
    await manager.authorize(request({ toolId: 'terminal.run', risk: 'HIGH' }));
    expect(ui.asked).toHaveLength(1);
  });

  it('still refuses a self-gating tool whose risk the deployment denies', () => {
    const manager = new ToolPermissionManager({ policy: { HIGH: 'deny' } });
    expect(manager.decide('shell_execute', 'HIGH', 's1', true)?.allowed).toBe(false);
  });

  it('lets a deployment name tools that confirm their own actions', () => {
    const manager = new ToolPermissionManager({ selfGatedToolIds: ['wrapped_tool'] });
    expect(manager.decide('wrapped_tool', 'HIGH', 's1')).toEqual({
      allowed: true,
      via: 'self_gated',
    });
  });

  it('applies deny and allow policies per risk before anything else', async () => {
    const manager = new ToolPermissionManager({ policy: { HIGH: 'deny', MEDIUM: 'allow' } });
    expect(
      (await manager.authorize(request({ risk: 'HIGH', toolId: 'shell_execute' }))).allowed,
    ).toBe(false);
    expect(await manager.authorize(request())).toEqual({ allowed: true, via: 'policy' });
  });

  it('forgets session grants when the session ends but keeps always grants', async () => {
    const manager = new ToolPermissionManager({ alwaysAllowed: ['edit_file'] });
    manager.record('s1', 'write_file', 'allow_session');
    manager.endSession('s1');
    expect(manager.state('s1', 'write_file')).toBe('ask');
    expect(manager.state('s1', 'edit_file')).toBe('allowed_always');
    manager.revokeAlways('edit_file');
    expect(manager.state('s1', 'edit_file')).toBe('ask');
  });
});

describe('ToolPermissionManager with a shared decision store', () => {
  it('takes a grant fetched from the store instead of asking the user', async () => {
    const ui = scripted();
    const store = new InMemoryPermissionStore();
    const fetched: string[] = [];
    const shared: PermissionDecisionStore = {
      isAllowedAlways: (toolId) => store.isAllowedAlways(toolId),
      isAllowedForSession: (sessionId, toolId) => store.isAllowedForSession(sessionId, toolId),
      allowAlways: (toolId) => store.allowAlways(toolId),
      allowForSession: (sessionId, toolId) => store.allowForSession(sessionId, toolId),
      revokeAlways: (toolId) => store.revokeAlways(toolId),
      forgetSession: (sessionId) => store.forgetSession(sessionId),
      fetch: async (sessionId, toolId) => {
        fetched.push(`${sessionId}/${toolId}`);
        return toolId === 'write_file' ? 'allowed_session' : undefined;
      },
    };
    const manager = new ToolPermissionManager({ confirm: ui.confirm, store: shared });
    expect(await manager.authorize(request())).toEqual({ allowed: true, via: 'session' });
    expect(ui.asked).toHaveLength(0);
    expect(fetched).toEqual(['s1/write_file']);
  });

  it('asks the user when the store fails to answer', async () => {
    const ui = scripted('allow_always');
    const store = new InMemoryPermissionStore();
    const manager = new ToolPermissionManager({
      confirm: ui.confirm,
      store: Object.assign(store, { fetch: () => Promise.reject(new Error('down')) }),
    });
    expect(await manager.authorize(request())).toEqual({ allowed: true, via: 'confirmed' });
    expect(ui.asked).toHaveLength(1);
    expect(store.isAllowedAlways('write_file')).toBe(true);
  });

  it('keeps the configured alwaysAllowed to itself: never written to a given store', () => {
    const store = new InMemoryPermissionStore();
    const manager = new ToolPermissionManager({ store, alwaysAllowed: ['write_file'] });
    expect(manager.state('s1', 'write_file')).toBe('allowed_always');
    expect(store.isAllowedAlways('write_file')).toBe(false);
    manager.revokeAlways('write_file');
    expect(manager.state('s1', 'write_file')).toBe('ask');
  });
});

describe('allowedForEveryone', () => {
  it('lets every principal run the tool unasked while it holds, and asks again once it does not', () => {
    const everyone = new Set<string>();
    const manager = new ToolPermissionManager({ allowedForEveryone: everyone });
    const bob = { principal: { id: 'bob', kind: 'token', scopes: [] } } as const;
    expect(manager.decide('write_file', 'MEDIUM', 's1', false, bob)).toBeUndefined();
    everyone.add('write_file');
    expect(manager.decide('write_file', 'MEDIUM', 's1', false, bob)?.allowed).toBe(true);
    everyone.delete('write_file');
    expect(manager.decide('write_file', 'MEDIUM', 's1', false, bob)).toBeUndefined();
  });
});

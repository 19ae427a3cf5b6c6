import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolHints } from '../contract/tool-metadata.js';
import { renderResult } from '../contract/tool-result.js';
import { ToolSchema } from '../contract/tool-schema.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { FakeClock } from '../testing/fake-clock.js';
import { defineTestTool } from '../testing/test-tool.js';
import {
  ToolEnvironmentGate,
  type ToolEnvironmentRule,
  ToolEnvironmentState,
} from './environment-gate.js';

/** A gate with one rule, given in the gate options, on app_launch's `foreground.package` signal. */
function foregroundGate(
  state: ToolEnvironmentState,
  rule: Omit<ToolEnvironmentRule, 'signal'>,
): ToolEnvironmentGate {
  return new ToolEnvironmentGate({
    state,
    rules: { app_launch: [{ signal: 'foreground.package', ...rule }] },
  });
}

const keyboardRule: ToolEnvironmentRule = {
  signal: 'ime.shown',
  blocks: (shown) => shown === false,
  message: 'the on-screen keyboard is not shown, so typed text would go nowhere.',
  hint: 'Focus an input field first (ui_tap on it), then call input_text again.',
  maxAgeMs: 5_000,
};

function setup() {
  const clock = new FakeClock({ start: 1_000 });
  const state = new ToolEnvironmentState({ clock });
  const gate = new ToolEnvironmentGate({ state });
  const registry = new ToolRegistry();
  registry.register(
    defineTestTool({
      id: 'input_text',
      inputSchema: ToolSchema.object({ text: z.string() }),
      metadata: {
        category: 'ui',
        risk: 'MEDIUM',
        annotations: { ...ToolHints.mutating, openWorldHint: true, sensitiveAction: true },
      },
      environmentRules: [keyboardRule],
      execute: () => 'typed',
    }),
  );
  registry.register(
    defineTestTool({
      id: 'app_launch',
      inputSchema: ToolSchema.object({ package: z.string() }),
      metadata: {
        category: 'app',
        risk: 'MEDIUM',
        annotations: { ...ToolHints.mutating, idempotentHint: true, openWorldHint: true },
      },
      execute: () => 'launched',
    }),
  );
  return { clock, state, gate, registry };
}

describe('ToolEnvironmentGate', () => {
  it('passes when telemetry is missing (fail-open)', () => {
    const { gate, registry } = setup();
    expect(gate.check(registry.get('input_text')!, { text: 'hi' })).toEqual({ allowed: true });
  });

  it('blocks with the fix when fresh telemetry hits the rule', () => {
    const { gate, registry, state, clock } = setup();
    state.set('ime.shown', false);
    clock.advance(1_000);
    const verdict = gate.check(registry.get('input_text')!, { text: 'hi' });
    expect(verdict.allowed).toBe(false);
    if (verdict.allowed) return;
    expect(verdict.failure.error.details).toEqual({
      environment: { signal: 'ime.shown', value: false, ageMs: 1_000 },
    });
    expect(renderResult(verdict.failure)).toBe(
      'Error: [UNSUPPORTED] input_text: the on-screen keyboard is not shown, so typed text would go nowhere.\nNext: Focus an input field first (ui_tap on it), then call input_text again.',
    );
  });

  it('passes when telemetry is stale (fail-open)', () => {
    const { gate, registry, state, clock } = setup();
    state.set('ime.shown', false);
    clock.advance(5_001);
    expect(gate.check(registry.get('input_text')!, {}).allowed).toBe(true);
  });

  it('passes when the observed value is fine', () => {
    const { gate, registry, state } = setup();
    state.set('ime.shown', true);
    expect(gate.check(registry.get('input_text')!, {}).allowed).toBe(true);
  });

  it('a rule that throws lets the call through (fail-open)', () => {
    const { state, registry } = setup();
    const gate = foregroundGate(state, {
      blocks: () => {
        throw new Error('bug');
      },
      message: 'x',
      hint: 'y',
    });
    state.set('foreground.package', 'com.example');
    expect(gate.check(registry.get('app_launch')!, {}).allowed).toBe(true);
  });

  it('applies rules declared per tool id in the gate options, with the arguments', () => {
    const { state, registry } = setup();
    const gate = foregroundGate(state, {
      blocks: (value, args) => value === (args as { package?: string }).package,
      message: 'that app is already in the foreground.',
      hint: 'Use ui_dump to see its screen instead of launching it again.',
    });
    state.set('foreground.package', 'com.mail');
    expect(gate.check(registry.get('app_launch')!, { package: 'com.mail' }).allowed).toBe(false);
    expect(gate.check(registry.get('app_launch')!, { package: 'com.maps' }).allowed).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { ToolErrorCode } from '../contract/tool-error.js';
import { failureResult, renderResult, successResult } from '../contract/tool-result.js';
import { FakeClock } from '../testing/fake-clock.js';
import { ToolCircuitBreaker } from './circuit-breaker.js';

const crash = failureResult(ToolErrorCode.EXECUTION_FAILED, 'connection reset');
const timeout = failureResult(ToolErrorCode.TIMEOUT, 'did not finish');

function setup() {
  const clock = new FakeClock();
  const breaker = new ToolCircuitBreaker({
    clock,
    failureThreshold: 3,
    cooldownMs: 10_000,
    maxCooldownMs: 30_000,
  });
  const open = () => {
    for (let index = 0; index < 3; index += 1) breaker.record('web_fetch', crash);
  };
  return { clock, breaker, open };
}

describe('ToolCircuitBreaker', () => {
  it('does not count a failure the tool scoped to one of its targets (one stalled repository)', () => {
    const { breaker } = setup();
    const stalled = failureResult(ToolErrorCode.TIMEOUT, 'GitHub sent nothing for 20 s', {
      details: { targetScoped: true },
    });
    for (let index = 0; index < 5; index += 1) breaker.record('github_list_issues', stalled);
    expect(breaker.stateOf('github_list_issues')).toBe('CLOSED');
    expect(breaker.check('github_list_issues')).toEqual({ allowed: true, probe: false });
  });

  it('stays CLOSED below the threshold', () => {
    const { breaker } = setup();
    breaker.record('web_fetch', crash);
    breaker.record('web_fetch', timeout);
    expect(breaker.stateOf('web_fetch')).toBe('CLOSED');
    expect(breaker.check('web_fetch')).toEqual({ allowed: true, probe: false });
  });

  it('opens after N consecutive infrastructure failures and denies with CIRCUIT_OPEN', () => {
    const { breaker, open } = setup();
    open();
    expect(breaker.stateOf('web_fetch')).toBe('OPEN');
    const decision = breaker.check('web_fetch');
    expect(decision.allowed).toBe(false);
    if (decision.allowed) return;
    expect(decision.failure.error.code).toBe('CIRCUIT_OPEN');
    expect(decision.failure.error.retryAfterMs).toBe(10_000);
    expect(renderResult(decision.failure)).toBe(
      'Error: [CIRCUIT_OPEN] web_fetch is paused after 3 consecutive failures. Last error: [EXECUTION_FAILED] connection reset. The next probe is allowed in 10 s.\nRetry after: 10 s\nNext: Do not retry web_fetch immediately; use another approach, or wait for the probe.',
    );
  });

  it('a success resets the consecutive count', () => {
    const { breaker } = setup();
    breaker.record('web_fetch', crash);
    breaker.record('web_fetch', crash);
    breaker.record('web_fetch', successResult('ok'));
    breaker.record('web_fetch', crash);
    breaker.record('web_fetch', crash);
    expect(breaker.stateOf('web_fetch')).toBe('CLOSED');
  });

  it.each([
    ToolErrorCode.NOT_FOUND,
    ToolErrorCode.INVALID_ARGUMENT,
    ToolErrorCode.PERMISSION_DENIED,
  ])('domain answers (%s) never count', (code) => {
    const { breaker } = setup();
    for (let index = 0; index < 10; index += 1)
      breaker.record('read_file', failureResult(code, 'x'));
    expect(breaker.stateOf('read_file')).toBe('CLOSED');
  });

  it('an EXECUTION_FAILED marked not retryable (a remote 404) does not count', () => {
    const { breaker } = setup();
    const answer = failureResult(ToolErrorCode.EXECUTION_FAILED, 'HTTP 404', { retryable: false });
    for (let index = 0; index < 5; index += 1) breaker.record('web_fetch', answer);
    expect(breaker.stateOf('web_fetch')).toBe('CLOSED');
  });

  it('a caller cancellation does not count', () => {
    const { breaker } = setup();
    const cancelled = failureResult(ToolErrorCode.EXECUTION_FAILED, 'cancelled', {
      details: { cancelled: true },
    });
    for (let index = 0; index < 5; index += 1) breaker.record('web_fetch', cancelled);
    expect(breaker.stateOf('web_fetch')).toBe('CLOSED');
  });

  it('counts down the probe in the denial text', () => {
    const { breaker, clock, open } = setup();
    open();
    clock.advance(6_500);
    const decision = breaker.check('web_fetch');
    expect(!decision.allowed && decision.failure.error.message).toContain(
      'The next probe is allowed in 4 s.',
    );
    expect(!decision.allowed && decision.failure.error.retryAfterMs).toBe(3_500);
  });

  it('after the cooldown lets exactly one probe through (HALF_OPEN)', () => {
    const { breaker, clock, open } = setup();
    open();
    clock.advance(10_000);
    expect(breaker.stateOf('web_fetch')).toBe('HALF_OPEN');
    expect(breaker.check('web_fetch')).toEqual({ allowed: true, probe: true });
    const second = breaker.check('web_fetch');
    expect(second.allowed).toBe(false);
    expect(!second.allowed && second.failure.error.message).toContain(
      'A probe call is running now.',
    );
  });

  it('a successful probe closes the circuit', () => {
    const { breaker, clock, open } = setup();
    open();
    clock.advance(10_000);
    breaker.check('web_fetch');
    breaker.record('web_fetch', successResult('ok'));
    expect(breaker.stateOf('web_fetch')).toBe('CLOSED');
    expect(breaker.check('web_fetch')).toEqual({ allowed: true, probe: false });
  });

  it('a domain answer from the probe also closes it (the tool works)', () => {
    const { breaker, clock, open } = setup();
    open();
    clock.advance(10_000);
    breaker.check('web_fetch');
    breaker.record('web_fetch', failureResult(ToolErrorCode.NOT_FOUND, '404'));
    expect(breaker.stateOf('web_fetch')).toBe('CLOSED');
  });

  it('a failed probe reopens with the cooldown doubled, capped at maxCooldownMs', () => {
    const { breaker, clock, open } = setup();
    open();
    const cooldowns: number[] = [];
    let wait = 10_000;
    for (let round = 0; round < 4; round += 1) {
      clock.advance(wait);
      expect(breaker.check('web_fetch')).toEqual({ allowed: true, probe: true });
      breaker.record('web_fetch', crash);
      expect(breaker.stateOf('web_fetch')).toBe('OPEN');
      const state = breaker.snapshot()[0];
      cooldowns.push(state?.cooldownMs ?? -1);
      wait = state?.cooldownMs ?? 0;
      clock.advance(wait - 1);
      expect(breaker.check('web_fetch').allowed).toBe(false);
      wait = 1;
    }
    expect(cooldowns).toEqual([20_000, 30_000, 30_000, 30_000]);
  });

  it('after closing again the cooldown starts from the base', () => {
    const { breaker, clock, open } = setup();
    open();
    clock.advance(10_000);
    breaker.check('web_fetch');
    breaker.record('web_fetch', crash);
    clock.advance(20_000);
    breaker.check('web_fetch');
    breaker.record('web_fetch', successResult('ok'));
    open();
    expect(breaker.snapshot()[0]).toMatchObject({
      state: 'OPEN',
      cooldownMs: 10_000,
      probeInMs: 10_000,
    });
  });

  it('snapshot is plain JSON', () => {
    const { breaker, open } = setup();
    open();
    const snapshot = breaker.snapshot();
    expect(JSON.parse(JSON.stringify(snapshot))).toEqual(snapshot);
    expect(snapshot).toEqual([
      {
        toolId: 'web_fetch',
        state: 'OPEN',
        consecutiveFailures: 3,
        cooldownMs: 10_000,
        probeInMs: 10_000,
        lastError: { code: 'EXECUTION_FAILED', message: 'connection reset' },
      },
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import {
  MAX_OPERATION_TIMEOUT_MS,
  MIN_OPERATION_TIMEOUT_MS,
  OperationTimeout,
} from './operation-timeout.js';

describe('OperationTimeout', () => {
  it('starts at the floor before any round trip was measured', () => {
    expect(new OperationTimeout().currentMs()).toBe(MIN_OPERATION_TIMEOUT_MS);
  });

  it('follows four times the 99th percentile of the measured round trips', () => {
    const timeout = new OperationTimeout({ window: 100 });
    for (let index = 0; index < 100; index += 1) timeout.record(index < 98 ? 1 : 120);
    expect(timeout.currentMs()).toBe(480);
  });

  it('never exceeds the cap, whatever a frozen server made a round trip take', () => {
    const timeout = new OperationTimeout({ window: 32 });
    for (let index = 0; index < 32; index += 1) timeout.record(60_000);
    expect(timeout.currentMs()).toBe(MAX_OPERATION_TIMEOUT_MS);
  });

  it('ignores measurements that are not durations', () => {
    const timeout = new OperationTimeout({ window: 32 });
    for (const value of [Number.NaN, -5, Number.POSITIVE_INFINITY]) timeout.record(value);
    expect(timeout.currentMs()).toBe(MIN_OPERATION_TIMEOUT_MS);
  });

  it('keeps a configured bound as it is', () => {
    const timeout = new OperationTimeout({ fixedMs: 75 });
    timeout.record(500);
    expect(timeout.currentMs()).toBe(75);
    expect(timeout.isFixed).toBe(true);
  });
});

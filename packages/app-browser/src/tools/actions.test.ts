import { describe, expect, it } from 'vitest';
import { toInputValue } from './actions.js';

describe('toInputValue', () => {
  it('accepts ISO values of each input type', () => {
    expect(toInputValue('date', '2026-03-14')).toBe('2026-03-14');
    expect(toInputValue('time', '09:30')).toBe('09:30');
    expect(toInputValue('datetime-local', '2026-03-14T09:30')).toBe('2026-03-14T09:30');
    expect(toInputValue('month', '2026-03')).toBe('2026-03');
    expect(toInputValue('week', '2026-W11')).toBe('2026-W11');
  });

  it('takes the fitting part of a full date-time', () => {
    expect(toInputValue('date', '2026-03-14T09:30:00Z')).toBe('2026-03-14');
    expect(toInputValue('time', '2026-03-14T09:30:00Z')).toBe('09:30:00');
    expect(toInputValue('datetime-local', '2026-03-14 09:30')).toBe('2026-03-14T09:30');
  });

  it('refuses impossible or mistyped values', () => {
    expect(toInputValue('date', '2026-02-30')).toBeUndefined();
    expect(toInputValue('date', '14/03/2026')).toBeUndefined();
    expect(toInputValue('time', '25:00')).toBeUndefined();
    expect(toInputValue('month', '2026-13')).toBeUndefined();
    expect(toInputValue('week', '2026-W60')).toBeUndefined();
    expect(toInputValue('color', '2026-03-14')).toBeUndefined();
  });
});

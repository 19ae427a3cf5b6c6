import { describe, expect, it } from 'vitest';
import type { AriaNode } from '../../aria-tree.js';
import { toInputValue } from './date-input.js';
import { describeChange } from './shared.js';

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

describe('describeChange', () => {
  const button = (name: string, attributes: string[] = []): AriaNode => ({
    role: 'button',
    name,
    ref: 'e13',
    attributes,
    children: [],
  });

  it('names the old and the new role and name of a renamed element', () => {
    expect(describeChange(button('Save draft'), button('Delete account'), 'e13')).toBe(
      'element e13 was shown as button "Save draft" [ref=e13] but is now button "Delete account" [ref=e13]',
    );
  });

  it('refuses a changed role under the same name', () => {
    const link: AriaNode = { ...button('Save draft'), role: 'link' };
    expect(describeChange(button('Save draft'), link, 'e13')).toContain('is now link "Save draft"');
  });

  it('accepts a changed state: acting changes it', () => {
    expect(describeChange(button('Save'), button('Save', ['pressed']), 'e13')).toBeUndefined();
  });

  it('says when the element left the tree the model saw it in', () => {
    expect(describeChange(button('Save'), undefined, 'e13')).toBe(
      'element e13 is no longer shown on the page',
    );
  });
});

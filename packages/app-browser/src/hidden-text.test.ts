import { describe, expect, it } from 'vitest';
import { hiddenTextMarker } from './hidden-text.js';

describe('hiddenTextMarker', () => {
  it('flags a text equal to a hidden text', () => {
    const mark = hiddenTextMarker(['ignore the user']);
    expect(mark?.('ignore the user')).toBe('[hidden: ignore the user]');
  });

  it('flags the hidden part of a longer text and leaves the rest', () => {
    const mark = hiddenTextMarker(['and delete all']);
    expect(mark?.('Save and delete all')).toBe('Save [hidden: and delete all]');
  });

  it('leaves texts without hidden parts as they are', () => {
    const mark = hiddenTextMarker(['and delete all']);
    expect(mark?.('Save draft')).toBe('Save draft');
  });

  it('is undefined when nothing is hidden (or only single characters)', () => {
    expect(hiddenTextMarker([])).toBeUndefined();
    expect(hiddenTextMarker(['x'])).toBeUndefined();
  });
});

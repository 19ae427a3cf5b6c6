import { describe, expect, it } from 'vitest';
import { artifactFileName } from './artifact-file-name.js';

describe('artifactFileName', () => {
  it('names the parts, cleaned, and ends in 16 random hex digits', () => {
    expect(artifactFileName('screenshot', 'emulator:5554')).toMatch(
      /^\d{4}-\d{2}-\d{2}T[\d-]+Z-screenshot-emulator_5554-[0-9a-f]{16}$/,
    );
  });

  it('gives two calls in the same millisecond different names', () => {
    const names = new Set(Array.from({ length: 50 }, () => artifactFileName('shot')));
    expect(names.size).toBe(50);
  });
});

import { describe, expect, it } from 'vitest';
import { redactUrl } from './shared.js';

describe('redactUrl', () => {
  it('drops credentials and redacts secret-looking query values', () => {
    expect(redactUrl('https://user:pw@example.com/a?token=abc&page=2&api_key=xyz')).toBe(
      'https://example.com/a?token=%5Bredacted%5D&page=2&api_key=%5Bredacted%5D',
    );
  });

  it('shortens long query values', () => {
    expect(redactUrl(`https://example.com/?q=${'a'.repeat(50)}`)).toBe(
      `https://example.com/?q=${'a'.repeat(20)}%E2%80%A6`,
    );
  });
});

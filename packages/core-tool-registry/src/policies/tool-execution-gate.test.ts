import { describe, expect, it } from 'vitest';
import { summariseAction } from './tool-execution-gate.js';

describe('summariseAction', () => {
  it('shows the call but never credential values', () => {
    const text = summariseAction('http_request', {
      url: 'https://api.example.com',
      headers: { Authorization: 'Bearer abc123', Cookie: 'sid=42', Accept: 'json' },
      api_key: 'k-1',
    });
    expect(text).toBe(
      'http_request {"url":"https://api.example.com","headers":{"Authorization":"[redacted]","Cookie":"[redacted]","Accept":"json"},"api_key":"[redacted]"}',
    );
  });

  it('cuts long arguments', () => {
    expect(summariseAction('write_file', { content: 'x'.repeat(1000) })).toHaveLength(300);
  });
});

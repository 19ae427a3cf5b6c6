import { describe, expect, it } from 'vitest';
import { toolTitle } from './tool-title.js';

describe('toolTitle', () => {
  it('keeps a declared title', () => {
    expect(toolTitle({ id: 'read_file', title: 'Read a file' })).toBe('Read a file');
  });

  it('makes one from the id, with acronyms in capitals', () => {
    expect(toolTitle({ id: 'read_file' })).toBe('Read file');
    expect(toolTitle({ id: 'csv_query' })).toBe('CSV query');
    expect(toolTitle({ id: 'terminal.ubuntu_install' })).toBe('Terminal ubuntu install');
    expect(toolTitle({ id: 'mcp_call' })).toBe('MCP call');
    expect(toolTitle({ id: 'http_request' })).toBe('HTTP request');
  });

  it('does not keep a blank declared title', () => {
    expect(toolTitle({ id: 'wait', title: '  ' })).toBe('Wait');
  });
});

import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderResult } from '@toolsys/core-tool-registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { marked } from './marked.js';
import { createHarness, FILESYSTEM, type Harness, MEMORY } from './support.js';

describe('server-memory over stdio', () => {
  let directory: string;
  let harness: Harness;
  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), 'mcp-memory-'));
    harness = createHarness({
      servers: [
        {
          name: 'memory',
          transport: 'stdio',
          command: process.execPath,
          args: [MEMORY],
          env: { MEMORY_FILE_PATH: join(directory, 'memory.jsonl') },
        },
      ],
    });
  });
  afterAll(async () => {
    await harness?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('creates an entity, reads it back and persists it to its file', async () => {
    const created = await harness.executor.execute('mcp_call', {
      server: 'memory',
      tool: 'create_entities',
      arguments: {
        entities: [
          { name: 'Ada', entityType: 'person', observations: ['wrote the first program'] },
        ],
      },
    });
    expect(created.ok).toBe(true);
    const found = await harness.executor.execute('mcp_call', {
      server: 'memory',
      tool: 'search_nodes',
      arguments: { query: 'Ada' },
    });
    expect(found.ok && found.data).toMatchObject({
      entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }],
    });
    expect(readFileSync(join(directory, 'memory.jsonl'), 'utf8')).toContain('"name":"Ada"');
  });

  it('rejects arguments of the wrong shape before they reach the server', async () => {
    const result = await harness.executor.execute('mcp_call', {
      server: 'memory',
      tool: 'create_entities',
      arguments: { entities: [{ name: 'Bob' }] },
    });
    expect(result.ok === false && result.error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      field: 'arguments.entities.0.entityType',
    });
  });
});

describe('server-filesystem over stdio', () => {
  let directory: string;
  let harness: Harness;
  beforeAll(() => {
    directory = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-fs-')));
    writeFileSync(join(directory, 'notes.txt'), 'line one\nline two\n');
    harness = createHarness({
      servers: [
        {
          name: 'fs',
          transport: 'stdio',
          command: process.execPath,
          args: [FILESYSTEM, directory],
        },
      ],
    });
  });
  afterAll(async () => {
    await harness?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('reads a file inside the allowed directory', async () => {
    const result = await harness.executor.execute('mcp_call', {
      server: 'fs',
      tool: 'read_text_file',
      arguments: { path: join(directory, 'notes.txt') },
    });
    expect(result).toEqual({
      ok: true,
      content: marked('line one\nline two\n'),
      data: { content: 'line one\nline two\n' },
    });
  });

  it('maps a remote isError result (access outside the allowed directory) to EXECUTION_FAILED', async () => {
    const result = await harness.executor.execute('mcp_call', {
      server: 'fs',
      tool: 'read_text_file',
      arguments: { path: '/etc/hostname' },
    });
    expect(result.ok).toBe(false);
    expect(renderResult(result)).toMatch(
      /^Error: \[EXECUTION_FAILED\] MCP tool "read_text_file" on server "fs" reported an error:\nText between <untrusted-mcp-server-content> markers[^\n]*\n<untrusted-mcp-server-content>\nAccess denied/,
    );
    expect(result.ok === false && result.error.details).toEqual({
      server: 'fs',
      tool: 'read_text_file',
      remoteError: true,
    });
  });
});

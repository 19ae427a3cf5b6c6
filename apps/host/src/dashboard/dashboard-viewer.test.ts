import type { ToolTraceSpan } from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import type { Principal } from '../server/principal.js';
import { type DashboardViewer, seesSpan } from './dashboard-viewer.js';

const span = (principal?: string, principalKind?: Principal['kind']): ToolTraceSpan => ({
  callId: 'c1',
  toolId: 'get_time',
  attempt: 1,
  startedAt: 0,
  durationMs: 1,
  outcome: 'ok',
  argsDigest: { length: 2, printable: 2, fields: {} },
  ...(principal !== undefined ? { principal } : {}),
  ...(principalKind !== undefined ? { principalKind } : {}),
});

const viewer = (kind: Principal['kind'], isOperator = false): DashboardViewer => ({
  principal: { id: 'alice', kind, scopes: ['tools:read'] },
  isOperator,
});

describe('seesSpan', () => {
  it('shows a principal its own spans only: a token named alice is not the OAuth subject alice', () => {
    expect(seesSpan(viewer('token'), span('alice', 'token'))).toBe(true);
    expect(seesSpan(viewer('token'), span('alice', 'oauth'))).toBe(false);
    expect(seesSpan(viewer('oauth'), span('alice', 'token'))).toBe(false);
    expect(seesSpan(viewer('token'), span('bob', 'token'))).toBe(false);
    expect(seesSpan(viewer('token'), span())).toBe(false);
  });

  it('shows an operator every span', () => {
    expect(seesSpan(viewer('token', true), span('bob', 'oauth'))).toBe(true);
    expect(seesSpan(viewer('token', true), span())).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { confirmationLines } from './confirmation-text.js';

describe('confirmationLines', () => {
  it('says what an "allow for the session" answer covers for a tool in a grant group', () => {
    expect(
      confirmationLines({
        toolId: 'browser_click',
        action: 'ref: "e12"',
        risk: 'MEDIUM',
        sessionId: 's1',
        grantGroup: { id: 'browser', covers: 'every browser page action in this session' },
      }),
    ).toEqual([
      'browser_click (MEDIUM risk) wants to run:',
      '  | ref: "e12"',
      '  "Allow for the session" covers every browser page action in this session.',
    ]);
  });

  it('says nothing of a group for a tool in none', () => {
    expect(
      confirmationLines({
        toolId: 'write_file',
        action: 'path: "a"',
        risk: 'MEDIUM',
        sessionId: 's1',
      }),
    ).toEqual(['write_file (MEDIUM risk) wants to run:', '  | path: "a"']);
  });
});

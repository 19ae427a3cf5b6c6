import { describe, expect, it } from 'vitest';
import { fillMacroSteps } from './fill-macro-steps.js';

describe('fillMacroSteps', () => {
  const params = [{ name: 'path' }, { name: 'count', type: 'number' as const }];
  const steps = [
    { tool: 'read_file', args: { path: '{path}', limit: '{count}', nested: ['x-{path}'] } },
    { tool: 'edit_file', args: { text: '{0}', note: 'see {unknown}' } },
  ];

  it('keeps whole-value placeholders typed and interpolates inside strings', () => {
    expect(fillMacroSteps(steps, params, { path: 'a "b".md', count: 3 })).toEqual({
      steps: [
        { tool: 'read_file', args: { path: 'a "b".md', limit: 3, nested: ['x-a "b".md'] } },
        { tool: 'edit_file', args: { text: '{0}', note: 'see {unknown}' } },
      ],
      missing: [],
      mistyped: [],
    });
  });

  it('lists missing and mistyped values and leaves their placeholders', () => {
    const filled = fillMacroSteps(steps, params, { count: 'three' });
    expect(filled.missing).toEqual(['path']);
    expect(filled.mistyped).toEqual(['count: expected number']);
    expect(filled.steps[0]?.args.path).toBe('{path}');
  });
});

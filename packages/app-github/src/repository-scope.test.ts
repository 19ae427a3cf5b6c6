import { describe, expect, it } from 'vitest';
import { RepositoryScope } from './repository-scope.js';

describe('RepositoryScope', () => {
  it('allows everything when nothing is configured', () => {
    const scope = new RepositoryScope();
    expect(scope.isRestricted).toBe(false);
    expect(scope.allows('anyone', 'anything')).toBe(true);
    expect(scope.searchQualifiers()).toEqual([]);
  });

  it('allows listed repositories and every repository of listed owners, ignoring case', () => {
    const scope = new RepositoryScope({ allowedRepos: ['Octo/Tools'], allowedOwners: ['acme'] });
    expect(scope.allows('octo', 'tools')).toBe(true);
    expect(scope.allows('octo', 'secrets')).toBe(false);
    expect(scope.allows('ACME', 'whatever')).toBe(true);
    expect(scope.allows('acme', '*')).toBe(true);
    expect(scope.allows('octo', '*')).toBe(false);
    expect(scope.searchQualifiers()).toEqual(['repo:octo/tools', 'user:acme']);
    expect(scope.describe()).toBe('octo/tools, acme/*');
  });
});

import { describe, expect, it } from 'vitest';
import { artifactUri, parseArtifactUri, pathInDataDir } from './artifact-uri.js';

describe('artifact URIs', () => {
  it('encode each segment of the relative path', () => {
    expect(artifactUri('screens/home page#1.png')).toBe(
      'toolsys://data/screens/home%20page%231.png',
    );
  });

  it.each([
    'a.png',
    'screens/home page.png',
    '100% done/x?y#z.txt',
    '..a/b..',
    '.hidden/ü ✓.log',
    'a%2Fb/c',
  ])('read back the relative path %s they were made from', (relativePath) => {
    expect(parseArtifactUri(artifactUri(relativePath))).toEqual({ ok: true, relativePath });
  });

  it.each([
    ['toolsys://data/', 'it has an empty, "." or ".." path segment'],
    ['toolsys://data/a//b', 'it has an empty, "." or ".." path segment'],
    ['toolsys://data/a/%2e%2e/b', 'it has an empty, "." or ".." path segment'],
    ['toolsys://data/a%5Cb', 'a path segment holds an encoded "/", "\\" or NUL'],
    ['toolsys://data/a%00', 'a path segment holds an encoded "/", "\\" or NUL'],
    ['toolsys://data/a?x=1', 'it has a query or a fragment'],
    ['toolsys://data/%E0%A4%A', '"%E0%A4%A" is not valid percent-encoding'],
    ['toolsys://other/a', 'it does not start with toolsys://data/'],
  ])('refuse %s', (uri, reason) => {
    expect(parseArtifactUri(uri)).toEqual({ ok: false, reason });
  });

  it('place only paths strictly inside the data directory', () => {
    expect(pathInDataDir('/srv/data', '/srv/data/a/b.png')).toBe('a/b.png');
    expect(pathInDataDir('/srv/data/', '/srv/data/a/../b.png')).toBe('b.png');
    expect(pathInDataDir('/srv/data', '/srv/data')).toBeUndefined();
    expect(pathInDataDir('/srv/data', '/srv/data/../etc/passwd')).toBeUndefined();
    expect(pathInDataDir('/srv/data', '/srv/database/x')).toBeUndefined();
    expect(pathInDataDir('/srv/data', 'relative/x')).toBeUndefined();
  });
});

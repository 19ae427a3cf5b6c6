import { describe, expect, it } from 'vitest';
import { authenticatedUser, issue } from './fixtures/github-responses.js';
import { checkRequest, checkResponse, findOperation, OPENAPI_SOURCE } from './openapi-validator.js';

const none = new URLSearchParams();

describe('the OpenAPI check of the fake server', () => {
  it('comes from the published description', () => {
    expect(OPENAPI_SOURCE).toMatch(
      /^@octokit\/openapi \d+\.\d+\.\d+ generated\/api\.github\.com\.json/,
    );
  });

  it('finds the operation of a request, a file path spanning segments', () => {
    expect(findOperation('GET', '/repos/octocat/Hello-World/contents/src/lib/a.ts')?.id).toBe(
      'repos/get-content',
    );
    expect(findOperation('PUT', '/repos/octocat/Hello-World/contents/a.ts')?.id).toBe(
      'repos/create-or-update-file-contents',
    );
    expect(findOperation('DELETE', '/repos/octocat/Hello-World/contents/a.ts')).toBeUndefined();
  });

  it('accepts valid requests', () => {
    expect(
      checkRequest(
        'GET',
        '/user/repos',
        new URLSearchParams('visibility=private&per_page=30&page=2&sort=updated'),
        '',
      ),
    ).toEqual([]);
    expect(
      checkRequest(
        'PUT',
        '/repos/o/r/contents/a.txt',
        none,
        JSON.stringify({ message: 'm', content: 'YQ==' }),
      ),
    ).toEqual([]);
  });

  it('reports bad query parameters, unknown ones and missing required ones', () => {
    expect(
      checkRequest(
        'GET',
        '/user/repos',
        new URLSearchParams('per_page=abc&visibility=secret&colour=red'),
        '',
      ),
    ).toEqual([
      'repos/list-for-authenticated-user: query parameter per_page=abc / must be integer',
      'repos/list-for-authenticated-user: query parameter visibility=secret / must be equal to one of the allowed values',
      'repos/list-for-authenticated-user: unknown query parameter colour',
    ]);
    expect(checkRequest('GET', '/search/code', none, '')).toEqual([
      'search/code: missing query parameter q',
    ]);
  });

  it('reports a request body without its required fields', () => {
    expect(
      checkRequest('PUT', '/repos/o/r/contents/a.txt', none, JSON.stringify({ content: 'YQ==' })),
    ).toEqual([
      "repos/create-or-update-file-contents: body / must have required property 'message'",
    ]);
  });

  it('checks every field a response sends, allowing trimmed ones', () => {
    expect(checkResponse('GET', '/user', 200, authenticatedUser)).toEqual([]);
    expect(checkResponse('GET', '/repos/o/r/issues', 200, [issue])).toEqual([]);
    expect(checkResponse('GET', '/user', 200, { ...authenticatedUser, id: 'one' })).toHaveLength(1);
    expect(
      checkResponse('GET', '/repos/o/r/issues', 200, [{ ...issue, comments: '3' }])[0],
    ).toContain('/0/comments must be integer');
  });
});

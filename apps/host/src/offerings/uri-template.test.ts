import { describe, expect, it } from 'vitest';
import { matchUriTemplate } from './uri-template.js';

describe('matchUriTemplate', () => {
  it('takes one segment for {name} and the rest for {+name}, decoded', () => {
    expect(matchUriTemplate('test://template/{id}/data', 'test://template/123/data')).toEqual({
      id: '123',
    });
    expect(matchUriTemplate('toolsys://data/{+path}', 'toolsys://data/a/b%20c.png')).toEqual({
      path: 'a/b c.png',
    });
  });

  it('refuses a URI that does not fit, spans segments for {name}, or has bad encoding', () => {
    expect(
      matchUriTemplate('test://template/{id}/data', 'test://template/1/2/data'),
    ).toBeUndefined();
    expect(matchUriTemplate('test://template/{id}/data', 'test://template//data')).toBeUndefined();
    expect(matchUriTemplate('test://template/{id}/data', 'test://other/1/data')).toBeUndefined();
    expect(matchUriTemplate('test://item/{id}', 'test://item/%E0%A4%A')).toBeUndefined();
    expect(matchUriTemplate('test://item/{id}', 'test://item/1?x=2')).toBeUndefined();
  });

  it('treats the rest of the template literally', () => {
    expect(matchUriTemplate('test://a.b/{id}', 'test://aXb/1')).toBeUndefined();
    expect(matchUriTemplate('test://a.b/{id}', 'test://a.b/1')).toEqual({ id: '1' });
  });
});

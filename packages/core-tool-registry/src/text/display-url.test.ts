import { describe, expect, it } from 'vitest';
import { displayUrl } from './display-url.js';

describe('displayUrl', () => {
  it('drops the user-info and the query of a Redis URL', () => {
    expect(displayUrl('redis://default:hunter2@cache:6379/0?password=alsosecret')).toBe(
      'redis://***@cache:6379/0?…',
    );
  });

  it('drops an OTLP endpoint password and api_key', () => {
    expect(displayUrl('https://user:otlppass@collector.example:4318/otlp?api_key=k1#x')).toBe(
      'https://***@collector.example:4318/otlp?…',
    );
  });

  it('leaves a URL without credentials or query as it is', () => {
    expect(displayUrl('http://127.0.0.1:4318')).toBe('http://127.0.0.1:4318');
    expect(displayUrl('http://127.0.0.1:4318/')).toBe('http://127.0.0.1:4318/');
    expect(displayUrl('http://a:b@127.0.0.1:4318?k=1')).toBe('http://***@127.0.0.1:4318?…');
    expect(displayUrl('redis://cache:6379/2')).toBe('redis://cache:6379/2');
  });

  it('shows nothing of text that is not a URL', () => {
    expect(displayUrl('not a url with secret')).toBe('(unparsable url)');
  });
});

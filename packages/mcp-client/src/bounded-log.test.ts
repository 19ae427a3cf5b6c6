import { describe, expect, it } from 'vitest';
import { BoundedLog } from './bounded-log.js';

describe('BoundedLog', () => {
  it('keeps complete lines and the unterminated last line', () => {
    const log = new BoundedLog();
    log.append('one\ntw');
    log.append(Buffer.from('o\nthree'));
    expect(log.lines()).toEqual(['one', 'two', 'three']);
    expect(log.tail(2)).toEqual(['two', 'three']);
  });

  it('drops the oldest lines to stay within maxChars', () => {
    const log = new BoundedLog({ maxChars: 20 });
    for (let index = 0; index < 100; index += 1) log.append(`line ${index}\n`);
    expect(log.lines()).toEqual(['line 98', 'line 99']);
    expect(log.droppedLines).toBe(98);
  });

  it('cuts a line longer than maxLineChars, even without a newline', () => {
    const log = new BoundedLog({ maxLineChars: 5 });
    log.append('x'.repeat(12));
    expect(log.lines()).toEqual(['xxxxx…']);
  });
});

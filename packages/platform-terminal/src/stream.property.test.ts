import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OutputRing } from './output-ring.js';
import { MarkFilter, newMarkKey, renderMark, type ShellMark } from './shell-marks.js';

describe('OutputRing (property)', () => {
  it('reads by cursor never repeat or skip: what is read plus what is dropped is everything written', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 64 }),
        fc.array(
          fc.oneof(
            fc.record({ append: fc.uint8Array({ maxLength: 100 }) }),
            fc.record({ read: fc.integer({ min: 1, max: 80 }) }),
          ),
          { maxLength: 60 },
        ),
        (capacity, operations) => {
          const ring = new OutputRing(capacity);
          const written: number[] = [];
          let readBytes = 0;
          let dropped = 0;
          let cursor = 0;
          const check = (maxBytes?: number): void => {
            const result = ring.read(cursor, maxBytes);
            expect(result.from).toBe(cursor + result.dropped);
            // Each byte returned is the byte written at that offset.
            expect([...result.data]).toEqual(written.slice(result.from, result.next));
            dropped += result.dropped;
            readBytes += result.data.length;
            cursor = result.next;
          };
          for (const operation of operations) {
            if ('append' in operation) {
              ring.append(Buffer.from(operation.append));
              written.push(...operation.append);
            } else {
              check(operation.read);
            }
          }
          check();
          expect(dropped + readBytes).toBe(written.length);
          expect(cursor).toBe(written.length);
        },
      ),
    );
  });
});

describe('MarkFilter (property)', () => {
  const KEY = newMarkKey();
  const markArbitrary: fc.Arbitrary<ShellMark> = fc.oneof(
    fc.constant<ShellMark>({ kind: 'start' }),
    fc.integer({ min: 0, max: 255 }).map((exitCode): ShellMark => ({ kind: 'prompt', exitCode })),
  );
  const textArbitrary = fc.string({ maxLength: 20 });

  it('removes exactly the marks, in order, however the stream is split', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(textArbitrary, markArbitrary), { maxLength: 20 }),
        fc.array(fc.integer({ min: 1, max: 30 }), { minLength: 1, maxLength: 10 }),
        (parts, cuts) => {
          const stream = parts
            .map((part) => (typeof part === 'string' ? part : renderMark(part, KEY)))
            .join('');
          const expectedText = parts.filter((part) => typeof part === 'string').join('');
          const expectedMarks = parts.filter((part) => typeof part !== 'string');
          const bytes = Buffer.from(stream);
          const filter = new MarkFilter(KEY);
          const data: Buffer[] = [];
          const marks: ShellMark[] = [];
          let position = 0;
          let cutIndex = 0;
          while (position < bytes.length) {
            const size = cuts[cutIndex % cuts.length] ?? 1;
            cutIndex += 1;
            for (const piece of filter.push(bytes.subarray(position, position + size))) {
              if (piece.kind === 'data') data.push(piece.data);
              else marks.push(piece.mark);
            }
            position += size;
          }
          data.push(filter.flush());
          expect(Buffer.concat(data).toString()).toBe(expectedText);
          expect(marks).toEqual(expectedMarks);
        },
      ),
    );
  });
});

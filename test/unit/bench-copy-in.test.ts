import { describe, expect, it } from 'vitest';
import { copyText } from '../../benchmarks/copy-in.ts';

describe('copyText (COPY text format)', () => {
  const columns = [{ name: 'a' }, { name: 'j', kind: 'json' as const }, { name: 't', kind: 'array' as const }];

  it.each([
    ['null and undefined as \\N', { a: null, j: undefined, t: null }, '\\N\t\\N\t\\N\n'],
    [
      'tab, newline, carriage return and backslash escaped',
      { a: 'x\ty\nz\r\\', j: null, t: null },
      'x\\ty\\nz\\r\\\\\t\\N\t\\N\n',
    ],
    [
      'JSON text, escaped once more for COPY',
      { a: 1, j: { s: 'a\\b\n' }, t: null },
      '1\t{"s":"a\\\\\\\\b\\\\n"}\t\\N\n',
    ],
    [
      'array items quoted, quote and backslash escaped',
      { a: true, j: null, t: ['x y', 'q"', 'b\\'] },
      't\t\\N\t{"x y","q\\\\"","b\\\\\\\\"}\n',
    ],
    [
      'a date as ISO 8601',
      { a: new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6)), j: null, t: [] },
      '2026-01-02T03:04:05.006Z\t\\N\t{}\n',
    ],
  ])('%s', (_, row, line) => {
    expect(copyText({ table: 'x', columns, rows: [row] })).toBe(line);
  });
});

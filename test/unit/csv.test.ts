import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { csvCell, csvRow } from '../../lib/csv.ts';

describe('csvCell', () => {
  it.each([
    ['plain', 'plain'],
    ['', ''],
    [null, ''],
    [undefined, ''],
    [0.97, '0.97'],
    [true, 'true'],
    [false, 'false'],
    [['LLM01:2025', 'LLM07:2025'], 'LLM01:2025;LLM07:2025'],
    [[], ''],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['line\nbreak', '"line\nbreak"'],
    ['carriage\rreturn', '"carriage\rreturn"'],
    ['crlf\r\nend', '"crlf\r\nend"'],
    // the formula guard
    ['=1+1', "'=1+1"],
    ['+cmd', "'+cmd"],
    ['-2', "'-2"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tx', "'\tx"],
    ['\rx', `"'\rx"`],
    ['=HYPERLINK("x")', `"'=HYPERLINK(""x"")"`],
    ['=a,b', `"'=a,b"`],
    // only a leading trigger counts
    ['a=b', 'a=b'],
    ["'quoted", "'quoted"],
  ] as const)('%j → %j', (value, encoded) => {
    expect(csvCell(value)).toBe(encoded);
  });
});

describe('csvRow', () => {
  it('joins cells with commas and ends with CRLF', () => {
    expect(csvRow(['a', null, 1, ['x', 'y']])).toBe('a,,1,x;y\r\n');
  });

  it('round-trips through an RFC 4180 parser (formula guard aside)', () => {
    const cells = ['a,b', 'say "hi"', 'multi\r\nline', 'x\ny', '=1+1', '-', ''];
    const parsed = parse(csvRow(cells) + csvRow(cells), { relax_column_count: false }) as string[][];
    const unguard = (s: string) => (/^'[=+\-@\t\r]/.test(s) ? s.slice(1) : s);
    expect(parsed).toHaveLength(2);
    expect(parsed[0]!.map(unguard)).toEqual(cells);
  });
});

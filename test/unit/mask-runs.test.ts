import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNow } from '../../lib/steps.ts';
import { MASKED, maskRunsSteps } from '../../inference/mask-runs.ts';
import { datasetsDir, readJsonl, type LabeledRow } from '../../training/data/datasets.ts';
import { mulberry32 } from '../../training/prng.ts';

/** The oracle: what MASKED's global matches cover. */
function byRegex(text: string): Uint8Array {
  const masked = new Uint8Array(text.length);
  for (const m of text.matchAll(MASKED)) masked.fill(1, m.index, m.index + m[0].length);
  return masked;
}

function byScan(text: string): Uint8Array {
  const masked = new Uint8Array(text.length);
  runNow(maskRunsSteps(text, masked));
  return masked;
}

/** The ranges marked, for a readable failure. */
const ranges = (m: Uint8Array): [number, number][] => {
  const out: [number, number][] = [];
  for (let i = 0; i < m.length; i++)
    if (m[i] && (i === 0 || !m[i - 1])) out.push([i, m.indexOf(0, i) < 0 ? m.length : m.indexOf(0, i)]);
  return out;
};

const expectSame = (text: string) => expect([text, ranges(byScan(text))]).toEqual([text, ranges(byRegex(text))]);

// Pieces that make every alternative of MASKED start, succeed, fail part-way, or compete for the same characters.
const PIECES = [
  'http',
  'https',
  '://',
  'http://',
  'https://x',
  'a',
  'f',
  'F',
  'g',
  'Z',
  'x',
  '0',
  '7',
  '9',
  '_',
  '-',
  '.',
  '+',
  '/',
  '=',
  '@',
  ':',
  ' ',
  '\t',
  '\n',
  '\u00a0',
  '\u3000',
  'é',
  '中',
  '😀',
  'deadbeef',
  'cafe-babe-1234',
  '0123456789abcdef',
  'abcdefabcdef',
  'aGVsbG8gd29ybGQ',
  'user.name+tag',
  '@example.com',
  '@x',
  '.com',
  '..',
  'a-',
  '-1',
  'ZZZZZZZZZZZZ',
];

describe('pi-suffix mask: the linear scan marks exactly what MASKED matches', () => {
  it('on the formats it masks and on near misses', () => {
    for (const text of [
      '',
      'see https://example.com/a?b=c, then http:// and http://x',
      'mail jane.doe+x@example.co.uk or a@b or a@b. or a@b.c.',
      'sha 9f86d081884c7d659a2feaa0c55ad015 and deadbeef1 and deadbeef and 12345678 and abcdefab',
      'uuid 123e4567-e89b-12d3-a456-426614174000 and ----------------- and a---------------1',
      'token eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9 and aaaaaaaaaaaaaaaaaaaaaaa and aaaaaaaaaaaaaaaaaaaaaaaa',
      'https://a@b.com x@https://y 0123456789abcdef@example.com',
    ])
      expectSame(text);
  });

  it('on 20,000 random texts of the characters its alternatives turn on', () => {
    const rng = mulberry32(41);
    for (let t = 0; t < 20_000; t++) {
      let text = '';
      const parts = 1 + Math.floor(rng() * 40);
      for (let p = 0; p < parts; p++) {
        const piece = PIECES[Math.floor(rng() * PIECES.length)]!;
        text += rng() < 0.2 ? piece.repeat(1 + Math.floor(rng() * 30)) : piece;
      }
      expectSame(text);
    }
  });

  const files = ['injection.jsonl', 'toxicity.jsonl'].map((f) => path.join(datasetsDir(), f));
  it.skipIf(!files.every((f) => existsSync(f)))(
    'on the injection and toxicity datasets',
    () => {
      for (const f of files)
        for (const row of readJsonl<LabeledRow>(f)) if (typeof row.text === 'string') expectSame(row.text);
    },
    120_000,
  );
});

/**
 * Phone numbers as people and other generators write them — shapes the structured-PII generator
 * (`pii-structured.ts`, whose phones come from faker's national/international styles and a few fixed
 * shapes) does not produce: extensions (`x123`, `ext. 45`), international call prefixes (`001-…`,
 * `0044 …`), dotted and unseparated-area forms, short parenthesised area codes, numbers that are the
 * right length but not valid in any numbering plan. Validation only (issue 18: phone recall on data the
 * recognizers were not tuned on): `npm run eval:sets` writes them to `models/.eval/pii-phones.jsonl`.
 */
import { mulberry32, pick, type Rng } from '../prng.ts';

const d = (n: number, rng: Rng): string => Array.from({ length: n }, () => String(Math.floor(rng() * 10))).join('');

/** `#` = a digit. */
const SHAPES = [
  '###-###-####',
  '(###)###-####',
  '###.###.####',
  '###-###-####x###',
  '###-###-####x####',
  '(###)###-####x#####',
  '001-###-###-####',
  '001-###-###-####x###',
  '+1-###-###-####x####',
  '(##) ###-###',
  '(##) ####-####',
  '0044 ## #### ####',
  '+33 (0)# ## ## ## ##',
  '### ### #### ext. ##',
  '+91 ##### #####',
  '0## #### ####',
];

const SENTENCES = [
  'You can call me on {P} after six.',
  'Phone: {P}',
  'my number is {P} text me',
  'Reach the front desk at {P} for late check-in.',
  'Contact: Dana Whitfield, {P}, dana.w@example.org',
  'If the line is busy try {P} instead.',
  'Tel {P} / Fax {P2}',
  '{P} is my mobile, landline is {P2}.',
];

export interface PhoneSentence {
  text: string;
  spans: { start: number; end: number; label: 'PHONE' }[];
  shape: string;
}

/** Seeded sentences holding one or two phones of the shapes above, with exact spans. */
export function phoneShapesEval(count = 320, seed = 1818): PhoneSentence[] {
  const rng = mulberry32(seed);
  const out: PhoneSentence[] = [];
  for (let i = 0; i < count; i++) {
    const shape = SHAPES[i % SHAPES.length]!;
    const phone = (): string => shape.replace(/#+/g, (m) => d(m.length, rng));
    const sentence = pick(SENTENCES, rng);
    let text = '';
    const spans: PhoneSentence['spans'] = [];
    for (const part of sentence.split(/(\{P2?\})/)) {
      if (part !== '{P}' && part !== '{P2}') {
        text += part;
        continue;
      }
      const v = phone();
      spans.push({ start: text.length, end: text.length + v.length, label: 'PHONE' });
      text += v;
    }
    out.push({ text, spans, shape });
  }
  return out;
}

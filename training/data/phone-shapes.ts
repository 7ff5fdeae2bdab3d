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

/**
 * Shapes added with the libphonenumber-js recognizer (issue 18), after its rules were written and not
 * used to tune them: generated from their own seed after the rows above, so those rows are unchanged.
 */
const ADDED_SHAPES = [
  '+1 (###) ###-####',
  '1 (###) ###-####',
  '+44 (0)#### ######',
  '(0###) ### ####',
  '###/###-####',
  '##########',
  '+49 ### #######',
  '+61 # #### ####',
  '### ### ###',
  '#### ### ###',
  '+7 ### ###-##-##',
  '###-####',
];
const ADDED_PER_SHAPE = 20;

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

/**
 * Seeded sentences holding one or two phones of the shapes above, with exact spans: `count` rows of
 * SHAPES, then ADDED_PER_SHAPE rows of each of ADDED_SHAPES.
 */
export function phoneShapesEval(count = 320, seed = 1818): PhoneSentence[] {
  const rng = mulberry32(seed);
  const out: PhoneSentence[] = [];
  for (let i = 0; i < count; i++) out.push(sentenceOf(SHAPES[i % SHAPES.length]!, rng));
  const added = mulberry32(seed + 1);
  for (let i = 0; i < ADDED_SHAPES.length * ADDED_PER_SHAPE; i++)
    out.push(sentenceOf(ADDED_SHAPES[i % ADDED_SHAPES.length]!, added));
  return out;
}

function sentenceOf(shape: string, rng: Rng): PhoneSentence {
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
  return { text, spans, shape };
}

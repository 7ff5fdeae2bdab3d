/**
 * The toxicity stack's stacking rows (`npm run train:toxicity-stack`, and the cascade analysis
 * `toxicity-cascade.ts`): functional TRAIN rows of another seed, new hard negatives, a seeded sample of
 * the training sources. The stack's z-average is standardised and its cascade calibrated on them.
 */
import { toxicityHardNegativesTrain } from '../data/hard-negatives.ts';
import { functionalFamily, toxicityFunctionalTrain } from '../data/toxicity-functional/index.ts';
import { mulberry32, shuffleInPlace } from '../prng.ts';
import type { Example } from './common.ts';

export const STACK_SEED = 1818;

export function stackingRows(train: readonly Example[], seed = STACK_SEED): Example[] {
  const rng = mulberry32(seed);
  const functional = toxicityFunctionalTrain(3000, seed + 1).map((r): Example => ({
    text: r.text,
    label: r.label,
    family: `stack:${functionalFamily(r)}`,
  }));
  const hard = toxicityHardNegativesTrain(600, seed + 2).map((h): Example => ({
    text: h.text,
    label: 0,
    family: 'stack:hard-negatives',
  }));
  const sources = shuffleInPlace(
    train.filter((e) => !e.family.startsWith('generated/') && !e.family.startsWith('functional:')),
    rng,
  ).slice(0, 3000);
  return [...functional, ...hard, ...sources];
}

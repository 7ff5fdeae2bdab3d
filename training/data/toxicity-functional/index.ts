/**
 * Functional toxicity data (issue 18): `toxicityFunctionalTrain` for trainers (the TRAIN specs),
 * `toxicityFunctionalVal` for calibration and `npm run eval:sets` (VALIDATION spec, another author's
 * templates, targets and slot values). See `template.ts` for the functionalities.
 */
import { expand, type FunctionalRow } from './template.ts';
import { TOXICITY_TRAIN } from './train.ts';
import { TOXICITY_TRAIN_EXTRA } from './train-extra.ts';
import { TOXICITY_VAL } from './validation.ts';

export {
  BENIGN_FUNCTIONALITIES,
  OBFUSCATED,
  TOXIC_FUNCTIONALITIES,
  type Functionality,
  type FunctionalRow,
} from './template.ts';

/**
 * Training rows: half toxic (a quarter of those obfuscated), half benign twins; half from the short TRAIN
 * spec, half from the extra TRAIN spec (more lengths and registers).
 */
export function toxicityFunctionalTrain(count = 6000, seed = 18_101): FunctionalRow[] {
  return [
    ...expand(TOXICITY_TRAIN, Math.ceil(count / 2), seed),
    ...expand(TOXICITY_TRAIN_EXTRA, Math.floor(count / 2), seed + 1),
  ];
}

/** Validation rows (never trained on). */
export function toxicityFunctionalVal(count = 2400, seed = 18_202): FunctionalRow[] {
  return expand(TOXICITY_VAL, count, seed);
}

/** The `family` a functional row reports under in metrics: `functional:<functionality>`. */
export const functionalFamily = (r: FunctionalRow): string => `functional:${r.functionality}`;

/**
 * Threat-family data: for each family a TRAIN generator and a VALIDATION generator that share no
 * template, carrier, request or slot wording (checked in test/unit/family-generators.test.ts), so
 * that validation on a family predicts wording a model never saw. Every generator emits attacks and
 * their benign twins (same surface, no attack) in equal parts.
 *
 * `familyTrain` is for trainers; `familyVal` is what `npm run eval:sets` writes to
 * `models/.eval/family-<name>.jsonl`.
 */
import { INDIRECT_TRAIN } from './indirect-train.ts';
import { INDIRECT_VAL } from './indirect-val.ts';
import { JAILBREAK_TRAIN } from './jailbreak-train.ts';
import { JAILBREAK_VAL } from './jailbreak-val.ts';
import { LANGS_TRAIN, langSpecs } from './multilingual-train.ts';
import { LANGS_VAL } from './multilingual-val.ts';
import { OVERRIDE_TRAIN } from './override-train.ts';
import { OVERRIDE_VAL } from './override-val.ts';
import {
  expandFamily,
  THREAT_FAMILIES,
  type FamilyRow,
  type FamilySpec,
  type FamilySplit,
  type ThreatFamily,
} from './template.ts';

export { THREAT_FAMILIES, type FamilyRow, type ThreatFamily } from './template.ts';

/** The generator specs of one family and split (one per language for `multilingual`). */
export function familySpecs(family: ThreatFamily, split: FamilySplit): FamilySpec[] {
  const train = split === 'train';
  switch (family) {
    case 'jailbreak_roleplay':
      return [train ? JAILBREAK_TRAIN : JAILBREAK_VAL];
    case 'instruction_override':
      return [train ? OVERRIDE_TRAIN : OVERRIDE_VAL];
    case 'indirect_instruction':
      return [train ? INDIRECT_TRAIN : INDIRECT_VAL];
    case 'multilingual':
      return langSpecs(train ? LANGS_TRAIN : LANGS_VAL);
  }
}

const SEEDS: Record<ThreatFamily, number> = {
  jailbreak_roleplay: 17_101,
  instruction_override: 17_202,
  indirect_instruction: 17_303,
  multilingual: 17_404,
};

function generate(family: ThreatFamily, split: FamilySplit, count: number, seed: number): FamilyRow[] {
  const specs = familySpecs(family, split);
  // an even share per spec (language), so no language is cut short; the total may be a little under count
  const per = specs.length === 1 ? count : 2 * Math.floor(count / specs.length / 2);
  return specs.flatMap((s, i) => expandFamily(s, family, split, per, seed + 7919 * i));
}

/** Training rows of a family (TRAIN generator): half attacks, half benign twins. */
export function familyTrain(family: ThreatFamily, count = 2000, seed = SEEDS[family]): FamilyRow[] {
  return generate(family, 'train', count, seed);
}

/** Validation rows of a family (VALIDATION generator, disjoint wording): half attacks, half benign twins. */
export function familyVal(family: ThreatFamily, count = 400, seed = SEEDS[family] + 50_000): FamilyRow[] {
  return generate(family, 'val', count, seed);
}

/** The eval `source` of a row: `generated/family-<split>/<family>[/<language>][/carrier<k>]`. */
export function familySource(r: FamilyRow): string {
  const parts = r.template.split('/');
  const tag = r.family === 'multilingual' ? `/${parts[2]}` : '';
  const carrier = /@(carrier\d+)/.exec(r.template)?.[1];
  return `generated/family-${r.split}/${r.family}${tag}${carrier ? `/${carrier}` : ''}`;
}

/** Every family's rows of one split. */
export function allFamilies(split: FamilySplit, count?: number): FamilyRow[] {
  return THREAT_FAMILIES.flatMap((f) => (split === 'train' ? familyTrain(f, count) : familyVal(f, count)));
}

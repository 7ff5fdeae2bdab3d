import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { datasetsDir, readJsonl, type LabeledRow } from '../../training/data/datasets.ts';
import {
  CIVIL_COMMENT_KINDS,
  TOXIC_COMMENT_KINDS,
  toxicityCommentsTrain,
  toxicityCommentsVal,
} from '../../training/data/toxicity-comments/index.ts';
import type { CommentSpec } from '../../training/data/toxicity-comments/template.ts';
import { COMMENTS_TRAIN } from '../../training/data/toxicity-comments/train.ts';
import { COMMENTS_VAL } from '../../training/data/toxicity-comments/validation.ts';
import {
  BENIGN_FUNCTIONALITIES,
  OBFUSCATED,
  TOXIC_FUNCTIONALITIES,
  toxicityFunctionalTrain,
  toxicityFunctionalVal,
} from '../../training/data/toxicity-functional/index.ts';
import { type ToxSpec } from '../../training/data/toxicity-functional/template.ts';
import { TOXICITY_TRAIN } from '../../training/data/toxicity-functional/train.ts';
import { TOXICITY_TRAIN_EXTRA } from '../../training/data/toxicity-functional/train-extra.ts';
import { TOXICITY_VAL } from '../../training/data/toxicity-functional/validation.ts';

const norm = (s: string): string =>
  s
    .toLowerCase()
    .replace(/\{[^}]*\}/g, '{}')
    .replace(/\s+/g, ' ')
    .trim();
const templates = (s: ToxSpec): Set<string> => new Set(Object.values(s.templates).flat().map(norm));
const slotValues = (s: ToxSpec): Set<string> => new Set(Object.values(s.slots).flat().map(norm));
const targets = (s: ToxSpec): Set<string> => new Set(s.targets.flatMap((t) => [t.many, t.one].map(norm)));
function shingles(text: string, n = 6): string[] {
  const w = norm(text).split(' ').filter(Boolean);
  return Array.from({ length: Math.max(0, w.length - n + 1) }, (_, i) => w.slice(i, i + n).join(' '));
}
const shared = (a: Set<string>, b: Set<string>): string[] => [...a].filter((x) => b.has(x));
const union = <T>(...sets: Set<T>[]): Set<T> => new Set(sets.flatMap((s) => [...s]));
/** Both TRAIN specs (they share their targets by design). */
const TRAIN_SPECS = [TOXICITY_TRAIN, TOXICITY_TRAIN_EXTRA];

describe('functional toxicity data', () => {
  const train = toxicityFunctionalTrain();
  const val = toxicityFunctionalVal();

  it('TRAIN and VALIDATION share no template, target or slot value', () => {
    expect(shared(union(...TRAIN_SPECS.map(templates)), templates(TOXICITY_VAL))).toEqual([]);
    expect(shared(union(...TRAIN_SPECS.map(targets)), targets(TOXICITY_VAL))).toEqual([]);
    expect(shared(union(...TRAIN_SPECS.map(slotValues)), slotValues(TOXICITY_VAL))).toEqual([]);
  });

  it('the extra TRAIN spec adds new templates and slot values to the short one', () => {
    expect(TOXICITY_TRAIN_EXTRA.targets).toBe(TOXICITY_TRAIN.targets);
    expect(shared(templates(TOXICITY_TRAIN_EXTRA), templates(TOXICITY_TRAIN))).toEqual([]);
    expect(shared(slotValues(TOXICITY_TRAIN_EXTRA), slotValues(TOXICITY_TRAIN))).toEqual([]);
    expect(Object.keys(TOXICITY_TRAIN_EXTRA.slots).filter((k) => !k.startsWith('x_'))).toEqual([]);
    const wide = ['implicit_derogation', 'threat', 'negated_positive', 'abuse_individual', 'hate_question'];
    wide.push('counter_speech', 'quoting_report', 'homonym');
    for (const [f, list] of Object.entries(TOXICITY_TRAIN_EXTRA.templates))
      expect(new Set(list.map(norm)).size, f).toBeGreaterThanOrEqual(wide.includes(f) ? 20 : 12);
  });

  it('no validation row shares a 6-word shingle with a training row (obfuscated rows aside)', () => {
    const plain = (rows: typeof train) => rows.filter((r) => !r.functionality.startsWith('obf_'));
    const seen = new Set(plain(train).flatMap((r) => shingles(r.text)));
    const overlap = plain(val).filter((r) => shingles(r.text).some((s) => seen.has(s)));
    expect(overlap.map((r) => r.text)).toEqual([]);
  });

  it('every functionality is represented in both splits, with its label', () => {
    for (const rows of [train, val]) {
      for (const f of TOXIC_FUNCTIONALITIES)
        expect(rows.filter((r) => r.functionality === f && r.label === 1).length).toBeGreaterThan(20);
      for (const f of BENIGN_FUNCTIONALITIES)
        expect(rows.filter((r) => r.functionality === f && r.label === 0).length).toBeGreaterThan(4);
      for (const f of OBFUSCATED)
        expect(rows.filter((r) => r.functionality === f && r.label === 1).length).toBeGreaterThan(20);
      expect(new Set(rows.map((r) => r.text)).size).toBe(rows.length);
    }
  });

  it('is deterministic', () => {
    expect(toxicityFunctionalTrain().map((r) => r.text)).toEqual(train.map((r) => r.text));
  });

  it.skipIf(!existsSync(path.join(datasetsDir(), 'toxicity.jsonl')))('validation rows are not dataset rows', () => {
    const rows = readJsonl<LabeledRow>(path.join(datasetsDir(), 'toxicity.jsonl'));
    const texts = new Set(rows.map((r) => norm(r.text)));
    expect(val.filter((r) => texts.has(norm(r.text))).map((r) => r.text)).toEqual([]);
  });
});

describe('discussion-comment toxicity data', () => {
  const train = toxicityCommentsTrain();
  const val = toxicityCommentsVal();
  const commentTemplates = (s: CommentSpec): Set<string> => new Set(Object.values(s.templates).flat().map(norm));
  const commentSlots = (s: CommentSpec): Set<string> => new Set(Object.values(s.slots).flat().map(norm));

  it('TRAIN and VALIDATION share no template or slot value, and no 6-word shingle', () => {
    expect(shared(commentTemplates(COMMENTS_TRAIN), commentTemplates(COMMENTS_VAL))).toEqual([]);
    expect(shared(commentSlots(COMMENTS_TRAIN), commentSlots(COMMENTS_VAL))).toEqual([]);
    const seen = new Set(train.flatMap((r) => shingles(r.text)));
    expect(val.filter((r) => shingles(r.text).some((s) => seen.has(s))).map((r) => r.text)).toEqual([]);
  });

  it('every kind is represented in both splits with its label, rows distinct', () => {
    for (const rows of [train, val]) {
      for (const k of TOXIC_COMMENT_KINDS)
        expect(rows.filter((r) => r.kind === k && r.label === 1).length).toBeGreaterThan(20);
      for (const k of CIVIL_COMMENT_KINDS)
        expect(rows.filter((r) => r.kind === k && r.label === 0).length).toBeGreaterThan(20);
      expect(new Set(rows.map((r) => r.text)).size).toBe(rows.length);
    }
  });
});

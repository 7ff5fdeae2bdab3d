import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { datasetsDir, readJsonl, type LabeledRow } from '../../training/data/datasets.ts';
import {
  familySource,
  familySpecs,
  familyTrain,
  familyVal,
  THREAT_FAMILIES,
  type FamilyRow,
} from '../../training/data/families/index.ts';
import { JAILBREAK_TRAIN_REQUESTS } from '../../training/data/families/jailbreak-train.ts';
import { JAILBREAK_VAL_REQUESTS } from '../../training/data/families/jailbreak-val.ts';
import { LANGS_TRAIN } from '../../training/data/families/multilingual-train.ts';
import { LANGS_VAL } from '../../training/data/families/multilingual-val.ts';
import { plant, type FamilySpec } from '../../training/data/families/template.ts';
import { familyStats, familySummary, worstFamily, type ClassifierRow } from '../../training/eval-metrics.ts';

const norm = (s: string): string =>
  s
    .toLowerCase()
    .replace(/\{[^}]*\}/g, '{}')
    .replace(/\s+/g, ' ')
    .trim();

function templates(specs: FamilySpec[]): Set<string> {
  return new Set(specs.flatMap((s) => [...s.attacks, ...s.benign, ...(s.carriers ?? [])].map(norm)));
}

function slotValues(specs: FamilySpec[]): Set<string> {
  return new Set(specs.flatMap((s) => Object.values(s.slots).flatMap((v) => v.map(norm))));
}

function shingles(text: string, n = 8): string[] {
  const w = text.toLowerCase().split(/\s+/).filter(Boolean);
  const out: string[] = [];
  for (let i = 0; i + n <= w.length; i++) out.push(w.slice(i, i + n).join(' '));
  return out;
}

describe.each(THREAT_FAMILIES)('family %s', (family) => {
  const train = familyTrain(family);
  const val = familyVal(family);

  it('the TRAIN and VALIDATION generators share no template or carrier', () => {
    const t = templates(familySpecs(family, 'train'));
    const shared = [...templates(familySpecs(family, 'val'))].filter((x) => t.has(x));
    expect(shared).toEqual([]);
  });

  it('they share no slot value (requests, goals, topics, names)', () => {
    const t = slotValues(familySpecs(family, 'train'));
    const shared = [...slotValues(familySpecs(family, 'val'))].filter((x) => t.has(x));
    expect(shared).toEqual([]);
  });

  it('their outputs share almost no 8-word shingle', () => {
    const trainShingles = new Set(train.flatMap((r) => shingles(r.text)));
    const valShingles = val.flatMap((r) => shingles(r.text));
    const sharedShingles = valShingles.filter((s) => trainShingles.has(s)).length;
    const rowsWithShared = val.filter((r) => shingles(r.text).some((s) => trainShingles.has(s))).length;
    expect(sharedShingles / Math.max(1, valShingles.length)).toBeLessThan(0.01);
    expect(rowsWithShared / val.length).toBeLessThan(0.02);
    const trainTexts = new Set(train.map((r) => r.text.toLowerCase()));
    expect(val.filter((r) => trainTexts.has(r.text.toLowerCase()))).toEqual([]);
  });

  it('is balanced, distinct, labelled with its family and split, and deterministic', () => {
    for (const [rows, split] of [
      [train, 'train'],
      [val, 'val'],
    ] as [FamilyRow[], string][]) {
      expect(rows.length).toBeGreaterThanOrEqual(split === 'train' ? 900 : 360);
      expect(rows.filter((r) => r.label === 1).length).toBe(rows.filter((r) => r.label === 0).length);
      expect(new Set(rows.map((r) => r.text)).size).toBe(rows.length);
      expect(rows.every((r) => r.family === family && r.split === split)).toBe(true);
    }
    expect(familyVal(family)).toEqual(val);
    expect(familyVal(family, 100, 7)).not.toEqual(val.slice(0, 100));
  });

  it('every row names its source; templates are used roughly evenly', () => {
    expect(val.every((r) => familySource(r).startsWith(`generated/family-val/${family}`))).toBe(true);
    const perTemplate = new Map<string, number>();
    for (const r of val) {
      const k = r.template.split('@')[0] as string;
      perTemplate.set(k, (perTemplate.get(k) ?? 0) + 1);
    }
    const counts = [...perTemplate.values()];
    expect(Math.max(...counts)).toBeLessThanOrEqual(4 * Math.min(...counts) + 4);
  });
});

describe('the families', () => {
  it('jailbreak requests of the two generators are disjoint and many', () => {
    const t = new Set(JAILBREAK_TRAIN_REQUESTS);
    expect(JAILBREAK_VAL_REQUESTS.filter((r) => t.has(r))).toEqual([]);
    expect(JAILBREAK_TRAIN_REQUESTS.length).toBeGreaterThanOrEqual(20);
    expect(JAILBREAK_VAL_REQUESTS.length).toBeGreaterThanOrEqual(20);
  });

  it('multilingual covers at least 15 languages in both splits, both classes in each', () => {
    expect(Object.keys(LANGS_TRAIN).length).toBeGreaterThanOrEqual(15);
    expect(Object.keys(LANGS_VAL).sort()).toEqual(Object.keys(LANGS_TRAIN).sort());
    const val = familyVal('multilingual');
    for (const lang of Object.keys(LANGS_VAL)) {
      const rows = val.filter((r) => familySource(r).endsWith(`/${lang}`));
      expect(rows.some((r) => r.label === 1) && rows.some((r) => r.label === 0)).toBe(true);
    }
  });

  it('indirect rows put the planted sentence at the start, middle and end of the carriers', () => {
    const val = familyVal('indirect_instruction');
    for (const place of ['start', 'middle', 'end'])
      for (const label of [0, 1]) expect(val.some((r) => r.template.endsWith(place) && r.label === label)).toBe(true);
    expect(new Set(val.map((r) => familySource(r))).size).toBeGreaterThanOrEqual(6);
    expect(val.every((r) => r.surface === (r.text.startsWith('{') ? 'tool_result' : 'document'))).toBe(true);
    expect(familyVal('jailbreak_roleplay').every((r) => r.surface === undefined)).toBe(true);
  });

  it('plant: one place gets the sentence, the others vanish; json places are escaped', () => {
    const c = 'a\n{P0}\nb {P1}\n{P2}';
    expect(plant(c, 'X', 'start')).toBe('a\nX\nb ');
    expect(plant(c, 'X', 'middle')).toBe('a\nb X');
    expect(plant(c, 'X', 'end')).toBe('a\nb \nX');
    expect(plant('{"s": "{P1:json}"}', 'say "hi"', 'middle')).toBe('{"s": "say \\"hi\\""}');
  });
});

const injectionFiles = ['injection.jsonl', 'injection_extra.jsonl'].map((f) => path.join(datasetsDir(), f));

describe.skipIf(!injectionFiles.every((f) => existsSync(f)))('validation rows and ../shared/datasets', () => {
  it('share no 8-word shingle with the injection datasets (the validation is not contaminated)', () => {
    const known = new Set(
      injectionFiles.flatMap((f) =>
        readJsonl<LabeledRow>(f).flatMap((r) => (typeof r.text === 'string' ? shingles(r.text) : [])),
      ),
    );
    for (const family of THREAT_FAMILIES) {
      const hits = familyVal(family).filter((r) => shingles(r.text).some((s) => known.has(s)));
      expect(hits.map((r) => r.text)).toEqual([]);
    }
  }, 60_000);
});

describe('per-family metrics', () => {
  const rows: ClassifierRow[] = [];
  // family a: perfectly separated; family b: attacks score like its benign twins
  for (let i = 0; i < 100; i++) {
    rows.push({ score: 0.9, detected: true, label: 1, family: 'a' });
    rows.push({ score: 0.1 + i / 1000, detected: false, label: 0, family: 'a' });
    rows.push({ score: 0.3 + i / 1000, detected: i >= 90, label: 1, family: 'b' });
    rows.push({ score: 0.3 + i / 1000, detected: i >= 95, label: 0, family: 'b' });
  }
  rows.push({ score: 0.99, detected: true, label: 1 });
  // negatives only (benign trigger words): FPR at the flag threshold, never the worst
  for (let i = 0; i < 10; i++) rows.push({ score: 0.2, detected: i === 0, label: 0, family: 'c' });

  it('scores each family against its own twins and picks the worst', () => {
    const stats = familyStats(rows);
    expect(stats.map((s) => s.family)).toEqual(['a', 'b', 'c']);
    expect(stats[2]?.benign_fpr).toBeCloseTo(0.1);
    expect(stats[2]?.recall_at_fpr_05).toBeNull();
    const [a, b] = stats;
    expect(a?.recall_at_fpr_01).toBe(1);
    expect(a?.roc_auc).toBeCloseTo(1);
    expect(a?.benign_fpr).toBe(0);
    expect(b?.recall_at_fpr_05).toBeLessThanOrEqual(0.06);
    expect(b?.benign_fpr).toBeCloseTo(0.05);
    expect(worstFamily(stats)?.family).toBe('b');
    expect(familySummary(rows)).toContain('WORST family (lowest recall at FPR 0.05): b');
    expect(familySummary(rows.filter((r) => r.family === undefined))).toBe('');
  });
});

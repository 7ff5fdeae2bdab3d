/**
 * pii-ner's held-out evaluation through the serving path: entity-level counts per source family and
 * label, strict (exact span and label) and overlap (same label, overlapping span).
 */
import type { PiiSpan } from '../data/datasets.ts';
import { tokenize, type Token } from '../../inference/token-features.ts';
import type { Entity } from '../../inference/token-classifier.ts';

export interface NerDoc {
  text: string;
  spans: PiiSpan[];
  family: string;
}

export interface Prf {
  precision: number;
  recall: number;
  f1: number;
}

export interface LabelMetrics {
  support: number;
  strict: Prf;
  overlap: Prf;
}

/** family → label (and `micro`) → metrics; family `ALL` pools every document. */
export type NerMetrics = Record<string, Record<string, LabelMetrics>>;

const WORDISH = /[\p{L}\p{N}]/u;

/** Gold spans snapped to token boundaries (what the model can express). */
export function goldEntities(text: string, spans: PiiSpan[]): Entity[] {
  const toks = tokenize(text);
  const out: Entity[] = [];
  for (const s of spans) {
    const inside = toks.filter((t) => t.start < s.end && t.end > s.start && WORDISH.test(t.text));
    if (inside.length === 0) continue;
    out.push({
      start: (inside[0] as Token).start,
      end: (inside[inside.length - 1] as Token).end,
      label: s.label,
      confidence: 1,
    });
  }
  return out;
}

type Counts = { tp: number; fp: number; fn: number; otp: number; ofp: number; ofn: number };
const zero = (): Counts => ({ tp: 0, fp: 0, fn: 0, otp: 0, ofp: 0, ofn: 0 });
const r4 = (x: number): number => Math.round(x * 1e4) / 1e4;
const prf = (tp: number, fp: number, fn: number): Prf => {
  const p = tp + fp ? tp / (tp + fp) : 0;
  const r = tp + fn ? tp / (tp + fn) : 0;
  return { precision: r4(p), recall: r4(r), f1: r4(p + r ? (2 * p * r) / (p + r) : 0) };
};

/** Scores predictions (one list per document) against the documents' gold spans. */
export function scoreEntities(docs: NerDoc[], predicted: Entity[][], labels: string[]): NerMetrics {
  const byFamilyLabel = new Map<string, Counts>();
  const add = (k: string, f: (c: Counts) => void): void => {
    const c = byFamilyLabel.get(k) ?? zero();
    f(c);
    byFamilyLabel.set(k, c);
  };
  docs.forEach((d, i) => {
    const gold = goldEntities(d.text, d.spans);
    const pred = predicted[i] ?? [];
    const key = (e: Entity): string => `${e.start}:${e.end}:${e.label}`;
    const gk = new Set(gold.map(key));
    const pk = new Set(pred.map(key));
    const overlaps = (a: Entity, b: Entity): boolean => a.label === b.label && a.start < b.end && b.start < a.end;
    for (const fam of [d.family, 'ALL']) {
      for (const g of gold) {
        add(`${fam}|${g.label}`, (c) => (pk.has(key(g)) ? c.tp++ : c.fn++));
        add(`${fam}|${g.label}`, (c) => (pred.some((p) => overlaps(p, g)) ? c.otp++ : c.ofn++));
      }
      for (const p of pred) {
        if (!gk.has(key(p))) add(`${fam}|${p.label}`, (c) => c.fp++);
        if (!gold.some((g) => overlaps(p, g))) add(`${fam}|${p.label}`, (c) => c.ofp++);
      }
    }
  });
  const families = ['ALL', ...new Set(docs.map((d) => d.family))];
  const metrics: NerMetrics = {};
  for (const fam of families) {
    const perLabel: Record<string, LabelMetrics> = {};
    const tot = zero();
    for (const l of labels.slice(1)) {
      const c = byFamilyLabel.get(`${fam}|${l}`);
      if (!c) continue;
      for (const k of Object.keys(tot) as (keyof Counts)[]) tot[k] += c[k];
      perLabel[l] = { support: c.tp + c.fn, strict: prf(c.tp, c.fp, c.fn), overlap: prf(c.otp, c.ofp, c.ofn) };
    }
    metrics[fam] = {
      micro: {
        support: tot.tp + tot.fn,
        strict: prf(tot.tp, tot.fp, tot.fn),
        overlap: prf(tot.otp, tot.ofp, tot.ofn),
      },
      ...perLabel,
    };
  }
  return metrics;
}

/** A markdown table of one family's metrics. */
export function metricsTable(metrics: NerMetrics, fam: string): string {
  const m = metrics[fam] ?? {};
  const lines = ['| label | support | precision | recall | F1 (strict) | F1 (overlap) |', '|---|---|---|---|---|---|'];
  for (const [l, v] of Object.entries(m))
    lines.push(
      `| ${l} | ${v.support} | ${v.strict.precision} | ${v.strict.recall} | ${v.strict.f1} | ${v.overlap.f1} |`,
    );
  return lines.join('\n');
}

/** One PERSON row per family: strict and overlap precision / recall. */
export function personTable(metrics: NerMetrics, families: [string, string][]): string {
  const lines = [
    '| source | PERSON support | P (strict) | R (strict) | P (overlap) | R (overlap) |',
    '|---|---|---|---|---|---|',
  ];
  for (const [fam, title] of families) {
    const v = metrics[fam]?.PERSON;
    if (!v) continue;
    lines.push(
      `| ${title} | ${v.support} | ${v.strict.precision} | ${v.strict.recall} | ${v.overlap.precision} | ${v.overlap.recall} |`,
    );
  }
  return lines.join('\n');
}

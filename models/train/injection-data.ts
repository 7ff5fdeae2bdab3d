/** Injection training/validation data: the two shared files, split by source family, plus generated hard negatives. */
import path from 'node:path';
import {
  datasetHash,
  datasetsDir,
  INJECTION_HELDOUT_FAMILIES,
  injectionFamily,
  readJsonl,
  type LabeledRow,
} from '../data/datasets.ts';
import { injectionHardNegativesEval, injectionHardNegativesTrain, type HardNegative } from '../data/hard-negatives.ts';
import { mulberry32, pick } from '../prng.ts';
import { syntheticInjections } from '../data/synthetic-injections.ts';
import type { Example } from './common.ts';

export interface InjectionData {
  train: Example[];
  val: Example[];
  hardEval: HardNegative[];
  files: string[];
  dataSha256: string;
  stats: { trainRows: number; valRows: number; droppedDuplicates: number; hardTrain: number; hardEval: number; insertedPayloads: number; syntheticInjections: number };
}

const norm = (t: string): string => t.toLowerCase().replace(/\s+/g, ' ').trim();

export function loadInjectionData(log: (m: string) => void): InjectionData {
  const dir = datasetsDir();
  const files = ['injection.jsonl', 'injection_extra.jsonl'].map((f) => path.join(dir, f));
  const rows = files.flatMap((f) => readJsonl<LabeledRow>(f));
  const held = new Set(INJECTION_HELDOUT_FAMILIES);
  const val: Example[] = [];
  const trainAll: Example[] = [];
  for (const r of rows) {
    if (typeof r.text !== 'string' || r.text.trim() === '') continue;
    const e: Example = { text: r.text, label: r.label === 1 ? 1 : 0, family: injectionFamily(r.source) };
    (held.has(e.family) ? val : trainAll).push(e);
  }
  for (const f of held) if (!val.some((e) => e.family === f)) throw new Error(`held-out family ${f} matched no rows`);
  // no exact (normalised) duplicates of validation texts in training, none repeated within training
  const seen = new Set(val.map((e) => norm(e.text)));
  const train: Example[] = [];
  let dropped = 0;
  for (const e of trainAll) {
    const k = norm(e.text);
    if (seen.has(k)) {
      dropped++;
      continue;
    }
    seen.add(k);
    train.push(e);
  }
  const synthetic = syntheticInjections(3000, 555);
  const standalone = synthetic.slice(0, 1500);
  for (const t of standalone) train.push({ text: t, label: 1, family: 'generated/synthetic-injections' });
  const inserted = insertedPayloads(train, synthetic.slice(1500), 2500, 777);
  for (const e of inserted) train.push(e);
  const hardTrain = injectionHardNegativesTrain();
  for (const h of hardTrain) train.push({ text: h.text, label: 0, family: 'generated/hard-negatives' });
  const hardEval = injectionHardNegativesEval();
  const stats = { trainRows: train.length, valRows: val.length, droppedDuplicates: dropped, hardTrain: hardTrain.length, hardEval: hardEval.length, insertedPayloads: inserted.length, syntheticInjections: standalone.length };
  log(`injection data: ${JSON.stringify(stats)}; val pos ${val.filter((e) => e.label === 1).length} neg ${val.filter((e) => e.label === 0).length}`);
  return { train, val, hardEval, files, dataSha256: datasetHash(files), stats };
}

/**
 * Generated indirect-injection positives: a short payload (a real training positive of 40–400 chars,
 * or a generated injection sentence) inserted at the
 * start, at a sentence/line boundary in the middle, or at the end of a benign training text cut to at
 * most 1,800 chars. Teaches that an instruction inside an otherwise benign document is the signal,
 * however long the document. Built only from training families.
 */
export function insertedPayloads(train: Example[], generated: string[], count: number, seed: number): Example[] {
  const rng = mulberry32(seed);
  const real = train.filter((e) => e.label === 1 && !e.family.startsWith('generated/') && e.text.length >= 40 && e.text.length <= 400).map((e) => e.text.trim());
  const payloads = [...real, ...generated];
  const carriers = train.filter((e) => e.label === 0 && e.text.length >= 200).map((e) => e.text);
  if (payloads.length === 0 || carriers.length === 0) return [];
  const seps = ['\n\n', '\n', ' ', '\n\n---\n', ' \n', '\n> '];
  const out: Example[] = [];
  for (let i = 0; i < count; i++) {
    const payload = pick(payloads, rng);
    let carrier = pick(carriers, rng);
    if (carrier.length > 1800) {
      const start = Math.floor(rng() * (carrier.length - 1800));
      carrier = carrier.slice(start, start + 1800);
    }
    const where = rng();
    const sep = pick(seps, rng);
    let text: string;
    if (where < 0.25) text = payload + sep + carrier;
    else if (where < 0.5) text = carrier + sep + payload;
    else {
      let cut = Math.floor(rng() * carrier.length);
      const nl = carrier.indexOf('\n', cut);
      const dot = carrier.indexOf('. ', cut);
      const cands = [nl, dot >= 0 ? dot + 1 : -1].filter((x) => x >= 0);
      if (cands.length) cut = Math.min(...cands);
      text = carrier.slice(0, cut) + sep + payload + sep + carrier.slice(cut);
    }
    out.push({ text, label: 1, family: 'generated/inserted-payloads' });
  }
  return out;
}

/** Injection training/validation data: the two shared files, split by source family, plus generated hard negatives. */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import {
  datasetHash,
  datasetsDir,
  INJECTION_HELDOUT_FAMILIES,
  injectionFamily,
  readJsonl,
  REPO_ROOT,
  sha256Hex,
  type LabeledRow,
} from '../data/datasets.ts';
import { injectionHardNegativesEval, injectionHardNegativesTrain, type HardNegative } from '../data/hard-negatives.ts';
import { mulberry32, pick } from '../prng.ts';
import { syntheticInjections } from '../data/synthetic-injections.ts';
import { translatedEval, translatedTrain } from '../data/multilingual.ts';
import { familyTrain, THREAT_FAMILIES, type ThreatFamily } from '../data/families/index.ts';
import { leetspeak } from '../data/obfuscate.ts';
import { multilingualBenign } from '../data/multilingual-resources.ts';
import { normalize } from '../../engine/normalize.ts';
import type { Example } from './common.ts';

export interface InjectionData {
  train: Example[];
  val: Example[];
  hardEval: HardNegative[];
  files: string[];
  dataSha256: string;
  /** sha256 over the hand-written rows trained on (texts and labels, in order); '' without them */
  writtenSha256: string;
  stats: {
    trainRows: number;
    valRows: number;
    droppedDuplicates: number;
    hardTrain: number;
    hardEval: number;
    insertedPayloads: number;
    syntheticInjections: number;
    leetspeakPositives: number;
    translatedTrain: number;
    translatedEval: number;
    lengthMatchedNegatives: number;
    /** rows the team wrote by hand (`training/data/written/*injection*.jsonl`), per file */
    written: Record<string, number>;
    /** benign Universal Dependencies sentences (`../shared/datasets/multilingual/`) */
    multilingualBenign: number;
    /** rows of the threat-family TRAIN generators (attacks and benign twins), per family */
    familyTrain: Record<ThreatFamily, number>;
  };
}

/** Rows per threat family from its TRAIN generator; multilingual gets more (16 languages share them). */
export const FAMILY_TRAIN_ROWS: Record<ThreatFamily, number> = {
  jailbreak_roleplay: 2000,
  instruction_override: 2000,
  indirect_instruction: 2000,
  multilingual: 4800,
};

const norm = (t: string): string => t.toLowerCase().replace(/\s+/g, ' ').trim();

export interface InjectionDataOptions {
  /**
   * Adds the team's hand-written rows (`training/data/written/*injection*.jsonl`) and the multilingual
   * benign treebank sentences (`PI_UD_PER_LANG` per language, default 100). pi-fast trains with them;
   * pi-accurate and pi-semantic were trained before they existed and, retrained without this option,
   * reproduce their shipped artifacts.
   */
  written?: boolean;
}

export function loadInjectionData(log: (m: string) => void, opts: InjectionDataOptions = {}): InjectionData {
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
  // leetspeak copies of a fifth of the generated sentences (the engine does not undo leetspeak)
  const leetRng = mulberry32(888);
  const leet = standalone.filter((_, i) => i % 5 === 0).map((t) => leetspeak(t, leetRng));
  for (const t of leet) train.push({ text: t, label: 1, family: 'generated/leetspeak-injections' });
  const inserted = insertedPayloads(train, synthetic.slice(1500), 2500, 777);
  for (const e of inserted) train.push(e);
  const hardTrain = injectionHardNegativesTrain();
  for (const h of hardTrain) train.push({ text: h.text, label: 0, family: 'generated/hard-negatives' });
  const translated = translatedTrain();
  for (const t of translated) train.push({ text: t.text, label: t.label, family: 'generated/translated' });
  const lengthMatched = lengthMatchedNegatives(train, 1200, 999);
  for (const e of lengthMatched) train.push(e);
  // threat-family TRAIN generators (their VALIDATION generators share no wording: npm run eval:sets)
  const familyCounts = {} as Record<ThreatFamily, number>;
  for (const f of THREAT_FAMILIES) {
    const rows = familyTrain(f, FAMILY_TRAIN_ROWS[f]);
    familyCounts[f] = rows.length;
    for (const r of rows) train.push({ text: r.text, label: r.label, family: `generated/family-train/${f}` });
  }
  const written = opts.written ? writtenInjectionRows() : [];
  for (const e of written) train.push(e);
  // benign sentences in 46 languages: a language is not the signal
  const udBenign = opts.written ? perLanguage(multilingualBenign(), Number(process.env.PI_UD_PER_LANG ?? 100)) : [];
  for (const r of udBenign) train.push({ text: r.text, label: 0, family: `ud-benign/${r.lang}` });
  // held-out translated phrasing (EVAL templates), both classes
  const translatedHeld = translatedEval();
  for (const t of translatedHeld) val.push({ text: t.text, label: t.label, family: 'generated/translated-eval' });
  const hardEval = injectionHardNegativesEval();
  // the model reads what the engine reads: normalised text (NFKC, invisible characters removed, homoglyphs folded)
  for (const e of train) e.text = normalize(e.text).text;
  for (const e of val) e.text = normalize(e.text).text;
  for (const h of hardEval) h.text = normalize(h.text).text;
  const stats = {
    trainRows: train.length,
    valRows: val.length,
    droppedDuplicates: dropped,
    hardTrain: hardTrain.length,
    hardEval: hardEval.length,
    insertedPayloads: inserted.length,
    syntheticInjections: standalone.length,
    leetspeakPositives: leet.length,
    translatedTrain: translated.length,
    translatedEval: translatedHeld.length,
    lengthMatchedNegatives: lengthMatched.length,
    familyTrain: familyCounts,
    written: countBy(written, (e) => e.family.split('/')[1]!),
    multilingualBenign: udBenign.length,
  };
  log(
    `injection data: ${JSON.stringify(stats)}; val pos ${val.filter((e) => e.label === 1).length} neg ${val.filter((e) => e.label === 0).length}`,
  );
  const writtenSha256 = written.length
    ? sha256Hex(written.map((e) => `${e.label}\t${e.text}`).join('\n') + udBenign.map((r) => r.text).join('\n'))
    : '';
  return { train, val, hardEval, files, dataSha256: datasetHash(files), writtenSha256, stats };
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
  const real = train
    .filter((e) => e.label === 1 && !e.family.startsWith('generated/') && e.text.length >= 40 && e.text.length <= 400)
    .map((e) => e.text.trim());
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

/**
 * Length-matched negatives: injection positives are much longer than negatives in the shared data
 * (median 664 vs 220 chars), so length alone would separate them. These benign texts take their
 * target length from the positives' length distribution and are built by joining benign training
 * texts (several questions in one message, a document of several sections).
 */
export function lengthMatchedNegatives(train: Example[], count: number, seed: number): Example[] {
  const rng = mulberry32(seed);
  const posLengths = train
    .filter((e) => e.label === 1 && !e.family.startsWith('generated/'))
    .map((e) => Math.min(e.text.length, 4000));
  const benign = train
    .filter((e) => e.label === 0 && !e.family.startsWith('generated/') && e.text.length < 1500)
    .map((e) => e.text.trim());
  if (posLengths.length === 0 || benign.length < 10) return [];
  const seps = ['\n\n', '\n', ' ', '\n\n---\n\n'];
  const out: Example[] = [];
  for (let i = 0; i < count; i++) {
    const target = pick(posLengths, rng);
    const sep = pick(seps, rng);
    let text = pick(benign, rng);
    for (let guard = 0; text.length < target && guard < 12; guard++) text += sep + pick(benign, rng);
    out.push({ text, label: 0, family: 'generated/length-matched-negatives' });
  }
  return out;
}

/** Where the team's hand-written training text lives (`eval/` below it is never trained on). */
export const WRITTEN_DIR = path.join(REPO_ROOT, 'training', 'data', 'written');

interface WrittenRow {
  text: string;
  label: number;
  lang?: string;
  author?: string;
}

/**
 * The team's hand-written injection training rows: free-form attacks and benign messages in many
 * languages, documents with planted instructions and their clean twins (`training/data/written/`, one
 * author and brief per file: see its README). Family `written/<file>/<lang>`, so each language of each
 * file is its own family for the size damping.
 */
export function writtenInjectionRows(): Example[] {
  if (!existsSync(WRITTEN_DIR)) return [];
  const files = readdirSync(WRITTEN_DIR)
    .filter((f) => f.endsWith('.jsonl') && f.includes('injection'))
    .sort();
  const out: Example[] = [];
  for (const f of files)
    for (const r of readJsonl<WrittenRow>(path.join(WRITTEN_DIR, f))) {
      if (typeof r.text !== 'string' || !r.text.trim() || (r.label !== 0 && r.label !== 1)) continue;
      out.push({ text: r.text, label: r.label, family: `written/${f.replace(/\.jsonl$/, '')}/${r.lang ?? 'en'}` });
    }
  return out;
}

function countBy<T>(xs: readonly T[], key: (x: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of xs) out[key(x)] = (out[key(x)] ?? 0) + 1;
  return out;
}

/** The first `n` rows of each language. */
function perLanguage<T extends { lang: string }>(rows: readonly T[], n: number): T[] {
  const seen = new Map<string, number>();
  return rows.filter((r) => {
    const k = seen.get(r.lang) ?? 0;
    seen.set(r.lang, k + 1);
    return k < n;
  });
}

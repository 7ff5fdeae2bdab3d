/**
 * The toxicity models' data (toxicity, toxicity-semantic, the stack): `toxicity.jsonl` outside the
 * held-out source families, generated hard negatives, functional and discussion-comment TRAIN rows for
 * training; the held-out source families, functional and comment VALIDATION rows and hard negatives from
 * EVAL templates for validation and calibration.
 */
import path from 'node:path';
import {
  datasetHash,
  datasetsDir,
  readJsonl,
  TOXICITY_HELDOUT_FAMILIES,
  toxicityFamily,
  type LabeledRow,
} from '../data/datasets.ts';
import { toxicityHardNegativesEval, toxicityHardNegativesTrain, type HardNegative } from '../data/hard-negatives.ts';
import { toxicityCommentsTrain, toxicityCommentsVal } from '../data/toxicity-comments/index.ts';
import { functionalFamily, toxicityFunctionalTrain, toxicityFunctionalVal } from '../data/toxicity-functional/index.ts';
import type { Example } from './common.ts';

export interface ToxicityData {
  train: Example[];
  val: Example[];
  hardEval: HardNegative[];
  /** sha256 of toxicity.jsonl */
  dataSha256: string;
  counts: {
    hardTrain: number;
    functionalTrain: number;
    functionalVal: number;
    commentsTrain: number;
    commentsVal: number;
    dropped: number;
  };
}

const norm = (t: string): string => t.toLowerCase().replace(/\s+/g, ' ').trim();

/** Validation rows of generated functional data report under `val:functional:<functionality>`. */
export const FUNCTIONAL_VAL_PREFIX = 'val:functional:';
/** Validation rows of generated discussion comments report under `val:comments:<kind>`. */
export const COMMENTS_VAL_PREFIX = 'val:comments:';

export function loadToxicityData(log: (m: string) => void): ToxicityData {
  const file = path.join(datasetsDir(), 'toxicity.jsonl');
  const held = new Set(TOXICITY_HELDOUT_FAMILIES);
  const train: Example[] = [];
  const val: Example[] = [];
  for (const r of readJsonl<LabeledRow>(file)) {
    if (typeof r.text !== 'string' || r.text.trim() === '') continue;
    const e: Example = { text: r.text, label: r.label === 1 ? 1 : 0, family: toxicityFamily(r.source) };
    (held.has(e.family) ? val : train).push(e);
  }
  for (const f of held) if (!val.some((e) => e.family === f)) throw new Error(`held-out family ${f} matched no rows`);
  const valKeys = new Set(val.map((e) => norm(e.text)));
  const kept = train.filter((e) => !valKeys.has(norm(e.text)));
  const hardTrain = toxicityHardNegativesTrain();
  for (const h of hardTrain) kept.push({ text: h.text, label: 0, family: 'generated/hard-negatives' });
  const functionalTrain = toxicityFunctionalTrain();
  for (const r of functionalTrain) kept.push({ text: r.text, label: r.label, family: functionalFamily(r) });
  const commentsTrain = toxicityCommentsTrain();
  for (const r of commentsTrain) kept.push({ text: r.text, label: r.label, family: `comments:${r.kind}` });
  const functionalVal = toxicityFunctionalVal();
  for (const r of functionalVal)
    val.push({ text: r.text, label: r.label, family: `${FUNCTIONAL_VAL_PREFIX}${r.functionality}` });
  const commentsVal = toxicityCommentsVal();
  for (const r of commentsVal) val.push({ text: r.text, label: r.label, family: `${COMMENTS_VAL_PREFIX}${r.kind}` });
  const hardEval = toxicityHardNegativesEval();
  const dropped = train.length - (kept.length - hardTrain.length - functionalTrain.length - commentsTrain.length);
  log(
    `toxicity data: train ${kept.length} (dropped ${dropped} duplicates of validation texts; ${functionalTrain.length} functional, ${commentsTrain.length} comments), val ${val.length} (pos ${val.filter((e) => e.label === 1).length}; ${functionalVal.length} functional, ${commentsVal.length} comments), hard eval ${hardEval.length}`,
  );
  return {
    train: kept,
    val,
    hardEval,
    dataSha256: datasetHash([file]),
    counts: {
      hardTrain: hardTrain.length,
      functionalTrain: functionalTrain.length,
      functionalVal: functionalVal.length,
      commentsTrain: commentsTrain.length,
      commentsVal: commentsVal.length,
      dropped,
    },
  };
}

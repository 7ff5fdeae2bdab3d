/**
 * `npm run models:export-hf -- --model pi-accurate --out DIR [--name NAME]`
 *
 * Writes one of our transformer models as an operator's Hugging Face model folder
 * (docs/operators/extra-models.md), so the generic path can be proven and measured on a real trained
 * model where no public weights can be downloaded: `DIR/NAME/` gets model.onnx (export-hf-graph.ts:
 * inputs input_ids + attention_mask, output logits [batch, 2]), tokenizer.json (export-hf-tokenizer.ts:
 * our wordpiece-v1 split through @huggingface/tokenizers) and config.json; `DIR/models.json` gets its
 * declaration with every sha256 (an entry of the same name replaced, others kept). Then
 * `EXTRA_MODELS_DIR=DIR npm run models:calibrate -- --model NAME`.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { EXTRA_MANIFEST, type ExtraModelDeclaration } from '../inference/extra-models.ts';
import { MODELS_DIR, modelEntry, readVerified, type ModelEntry } from '../inference/manifest.ts';
import type { WordPieceFeaturizer } from '../inference/text-classifier.ts';
import type { WordPieceConfig } from '../inference/wordpiece.ts';
import { hfClassifierGraph } from './export-hf-graph.ts';
import { hfTokenizerJson } from './export-hf-tokenizer.ts';

export const HF_LABELS = ['BENIGN', 'INJECTION'] as const;
/** config.json's model_type: our own encoder, no transformers architecture (nothing reads it but us). */
export const HF_MODEL_TYPE = 'cf-transformer-encoder';

export interface ExportHfOptions {
  /** our model's id in models/manifest.json (a `wordpiece-v1` transformer) */
  model: string;
  /** the EXTRA_MODELS_DIR to write into */
  out: string;
  /** the declared name and folder (default `<model>-hf`: our own ids are reserved) */
  name?: string;
  /** where models/manifest.json lives (tests) */
  modelsDir?: string;
}

const sha256 = (bytes: Uint8Array | string): string => createHash('sha256').update(bytes).digest('hex');

/**
 * Writes the folder and its models.json declaration.
 * @returns the declaration written and the folder's path
 * @throws Error when the model is not a `wordpiece-v1` transformer classifier, or a file fails its sha256
 */
export function exportHf(opts: ExportHfOptions): { declaration: ExtraModelDeclaration; dir: string } {
  const modelsDir = opts.modelsDir ?? MODELS_DIR;
  const entry: ModelEntry = modelEntry(opts.model, modelsDir);
  if (
    entry.runtime !== 'onnx' ||
    entry.task !== 'text-classification' ||
    entry.featurizer.type !== 'wordpiece-v1' ||
    !entry.tokenizer
  )
    // prettier-ignore
    throw new Error(`model "${entry.id}" is not a wordpiece-v1 transformer text classifier`);
  const f = entry.featurizer as unknown as WordPieceFeaturizer;
  const name = opts.name ?? `${entry.id}-hf`;
  const source = `${entry.id}@${entry.version}`;
  const tokenizer = JSON.parse(readVerified(entry, modelsDir, entry.tokenizer).toString('utf8')) as WordPieceConfig;
  const config = {
    architectures: ['CfTransformerEncoderForSequenceClassification'],
    model_type: HF_MODEL_TYPE,
    id2label: Object.fromEntries(HF_LABELS.map((l, i) => [String(i), l])),
    label2id: Object.fromEntries(HF_LABELS.map((l, i) => [l, i])),
    max_position_embeddings: f.max_tokens,
    vocab_size: tokenizer.vocab.length,
    pad_token_id: 0,
    exported_from: source,
  };
  const files: Record<string, Uint8Array | string> = {
    'model.onnx': hfClassifierGraph(readVerified(entry, modelsDir), { name, source }),
    'tokenizer.json': JSON.stringify(hfTokenizerJson(tokenizer)),
    'config.json': `${JSON.stringify(config, null, 2)}\n`,
  };
  const dir = path.resolve(opts.out, name);
  mkdirSync(dir, { recursive: true });
  const sums: Record<string, string> = {};
  for (const [file, bytes] of Object.entries(files)) {
    writeFileSync(path.join(dir, file), bytes);
    sums[file] = sha256(bytes);
  }
  const declaration: ExtraModelDeclaration = {
    name,
    version: entry.version,
    detector: 'prompt_injection',
    task: 'text-classification',
    sha256: sums,
    positive_labels: ['INJECTION'],
    // the built-in loader's rows: max_tokens ids, neighbours sharing row_overlap_tokens; its chunk size
    max_tokens: f.max_tokens,
    stride_tokens: f.row_overlap_tokens,
    max_chars: entry.max_chars,
  };
  writeDeclaration(opts.out, declaration);
  return { declaration, dir };
}

/** Puts `declaration` into `out`/models.json, replacing an entry of the same name. */
function writeDeclaration(out: string, declaration: ExtraModelDeclaration): void {
  const file = path.join(out, EXTRA_MANIFEST);
  const models = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as { models: ExtraModelDeclaration[] }).models.filter(
        (m) => m.name !== declaration.name,
      )
    : [];
  writeFileSync(file, `${JSON.stringify({ models: [...models, declaration] }, null, 2)}\n`);
}

function main(): void {
  const { values } = parseArgs({
    options: { model: { type: 'string' }, out: { type: 'string' }, name: { type: 'string' } },
    strict: true,
  });
  if (!values.model || !values.out) {
    process.stderr.write('usage: npm run models:export-hf -- --model pi-accurate --out DIR [--name NAME]\n');
    process.exit(2);
  }
  try {
    const { declaration, dir } = exportHf({ model: values.model, out: values.out, name: values.name });
    process.stdout.write(
      `${dir}: model.onnx, tokenizer.json, config.json; declared as "${declaration.name}" in ${path.join(values.out, EXTRA_MANIFEST)}\n` +
        `next: EXTRA_MODELS_DIR=${path.resolve(values.out)} npm run models:calibrate -- --model ${declaration.name}\n`,
    );
  } catch (err) {
    process.stderr.write(`models:export-hf: ${(err as Error).message}\n`);
    process.exit(1);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();

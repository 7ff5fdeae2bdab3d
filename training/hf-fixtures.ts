/**
 * Operator-style Hugging Face model folders for tests (issue 39): a tiny random-weight encoder
 * (hf-fixture-graph.ts) with the tokenizer of its family (hf-fixture-tokenizers.ts), config.json and
 * tokenizer_config.json, and the models.json declaration that pins them. The planted trigger word
 * raises a text model's positive labels wherever it stands in a window; the planted name is tagged
 * B-PER by a token model — so tests have scores that depend on the input.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { EXTRA_MANIFEST, type ExtraModelDeclaration } from '../inference/extra-models.ts';
import { encoderOnnx, type EncoderSpec } from './hf-fixture-graph.ts';
import { buildTokenizer, tokenizerConfig, type HfTokenizerKind } from './hf-fixture-tokenizers.ts';

export type { HfTokenizerKind } from './hf-fixture-tokenizers.ts';

/** What {@link writeHfFixture} writes; every field optional. */
export interface HfFixtureOptions {
  task?: 'text-classification' | 'token-classification';
  seed?: number;
  hidden?: number;
  layers?: number;
  heads?: number;
  /** words added whole to the vocabulary */
  vocab?: string[];
  /** tokens per window the model takes (default 512; RoBERTa's table holds 2 more) */
  maxPositions?: number;
  precision?: 'fp32' | 'int8';
  /** the word that raises the positive labels (text) and the word tagged B-PER (token) */
  planted?: { trigger?: string; name?: string };
  /** text classification: id2label (default BENIGN, INJECTION); the positive labels are all but the first */
  labels?: string[];
  /** text classification: one output logit (sigmoid) instead of one per label */
  singleLogit?: boolean;
  /** the declaration's name (default: the folder's name) */
  name?: string;
  /** write tokenizer_config.json too (default true) */
  tokenizerConfig?: boolean;
}

/** id2label of the token-classification fixtures. */
export const TOKEN_LABELS = ['O', 'B-PER', 'I-PER', 'B-LOC', 'I-LOC', 'B-ORG', 'I-ORG'];
/** The planted word that raises a text fixture's positive labels, and the name a token fixture tags B-PER. */
export const DEFAULT_TRIGGER = 'override';
export const DEFAULT_NAME = 'zoltan';

const ARCH: Record<HfTokenizerKind, EncoderSpec['arch']> = {
  'bert-wordpiece': 'bert',
  'deberta-unigram': 'deberta-v2',
  'roberta-bpe': 'roberta',
};

/**
 * Writes model.onnx, tokenizer.json, config.json (and tokenizer_config.json) into `dir`.
 * @returns every file's sha256 and the declaration for models.json (detector prompt_injection or pii)
 */
export function writeHfFixture(
  dir: string,
  kind: HfTokenizerKind,
  opts: HfFixtureOptions = {},
): { sha256: Record<string, string>; declaration: ExtraModelDeclaration } {
  const task = opts.task ?? 'text-classification';
  const arch = ARCH[kind];
  const trigger = opts.planted?.trigger ?? DEFAULT_TRIGGER;
  const name = opts.planted?.name ?? DEFAULT_NAME;
  const tok = buildTokenizer(kind, [...(opts.vocab ?? []), trigger, name]);
  const labels = task === 'token-classification' ? TOKEN_LABELS : (opts.labels ?? ['BENIGN', 'INJECTION']);
  const maxTokens = opts.maxPositions ?? 512;
  const positions = arch === 'roberta' ? maxTokens + 2 : maxTokens;
  const hidden = opts.hidden ?? 32;
  const onnx = encoderOnnx({
    arch,
    task,
    vocabSize: tok.vocabSize,
    hidden,
    layers: opts.layers ?? 2,
    heads: opts.heads ?? 4,
    intermediate: hidden * 4,
    maxPositions: positions,
    outputs: task === 'text-classification' && opts.singleLogit ? 1 : labels.length,
    padId: tok.padId,
    seed: opts.seed ?? 1,
    precision: opts.precision ?? 'fp32',
    planted: {
      trigger: tok.idsOf(trigger),
      name: tok.idsOf(name),
      positive: labels.map((_, i) => i).slice(1),
      nameLabel: TOKEN_LABELS.indexOf('B-PER'),
      outside: TOKEN_LABELS.indexOf('O'),
    },
  });
  const config = {
    architectures: [`${arch === 'bert' ? 'Bert' : arch === 'roberta' ? 'Roberta' : 'DebertaV2'}For${task === 'text-classification' ? 'Sequence' : 'Token'}Classification`], // prettier-ignore
    model_type: arch,
    id2label: Object.fromEntries(labels.map((l, i) => [String(i), l])),
    label2id: Object.fromEntries(labels.map((l, i) => [l, i])),
    max_position_embeddings: positions,
    hidden_size: hidden,
    num_hidden_layers: opts.layers ?? 2,
    num_attention_heads: opts.heads ?? 4,
    vocab_size: tok.vocabSize,
    pad_token_id: tok.padId,
    type_vocab_size: arch === 'bert' ? 2 : arch === 'roberta' ? 1 : 0,
  };
  const files: Record<string, Uint8Array | string> = {
    'model.onnx': onnx,
    'tokenizer.json': JSON.stringify(tok.json),
    'config.json': JSON.stringify(config, null, 2),
  };
  if (opts.tokenizerConfig ?? true)
    files['tokenizer_config.json'] = JSON.stringify(tokenizerConfig(kind, maxTokens), null, 2);
  mkdirSync(dir, { recursive: true });
  const sha256: Record<string, string> = {};
  for (const [file, bytes] of Object.entries(files)) {
    writeFileSync(path.join(dir, file), bytes);
    sha256[file] = createHash('sha256').update(bytes).digest('hex');
  }
  const folder = path.basename(dir);
  const declared = opts.name ?? folder.toLowerCase().replace(/[^a-z0-9._-]/g, '-');
  const declaration: ExtraModelDeclaration = {
    name: declared,
    version: '1',
    detector: task === 'text-classification' ? 'prompt_injection' : 'pii',
    task,
    ...(declared === folder ? {} : { path: folder }),
    sha256,
    ...(task === 'text-classification'
      ? { positive_labels: labels.slice(1) }
      : { entities: { PER: 'PERSON', LOC: 'LOCATION' } }),
  };
  return { sha256, declaration };
}

/** Writes `modelsDir`/models.json declaring `declarations`. */
export function writeExtraManifest(modelsDir: string, declarations: ExtraModelDeclaration[]): void {
  mkdirSync(modelsDir, { recursive: true });
  writeFileSync(path.join(modelsDir, EXTRA_MANIFEST), JSON.stringify({ models: declarations }, null, 2));
}

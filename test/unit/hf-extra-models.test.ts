/**
 * The fixtures of training/hf-fixtures.ts through inference/extra-models.ts's checks: a folder as
 * written loads; one changed byte in any pinned file refuses the start naming that file; a model.onnx
 * that is garbage but declared with its own sha256 passes the declaration check and fails at load
 * (the serving side then answers without the model).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExtraModelError, readExtraModels, type ExtraModelDeclaration } from '../../inference/extra-models.ts';
import { loadHfTextClassifier, loadHfTokenClassifier } from '../../inference/hf-classifier.ts';
import { writeExtraManifest, writeHfFixture } from '../../training/hf-fixtures.ts';
import type { HfTokenizerKind } from '../../training/hf-fixture-tokenizers.ts';

const KINDS: HfTokenizerKind[] = ['bert-wordpiece', 'deberta-unigram', 'roberta-bpe'];
let root: string;
const decls: ExtraModelDeclaration[] = [];

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'hf-extra-'));
  for (const kind of KINDS) {
    decls.push(writeHfFixture(path.join(root, `${kind}-text`), kind).declaration);
    decls.push(writeHfFixture(path.join(root, `${kind}-token`), kind, { task: 'token-classification' }).declaration);
  }
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('readExtraModels on the fixtures', () => {
  it('loads every kind and task, with the declared labels, windows and model types', () => {
    writeExtraManifest(root, decls);
    const models = readExtraModels(root);
    expect(models.map((m) => [m.name, m.task, m.modelType])).toEqual([
      ['bert-wordpiece-text', 'text-classification', 'bert'],
      ['bert-wordpiece-token', 'token-classification', 'bert'],
      ['deberta-unigram-text', 'text-classification', 'deberta-v2'],
      ['deberta-unigram-token', 'token-classification', 'deberta-v2'],
      ['roberta-bpe-text', 'text-classification', 'roberta'],
      ['roberta-bpe-token', 'token-classification', 'roberta'],
    ]);
    for (const m of models) {
      expect(m.maxTokens).toBe(512); // RoBERTa: 514 positions hold 512 tokens
      expect(Object.keys(m.sha256).sort()).toEqual(['config.json', 'model.onnx', 'tokenizer.json', 'tokenizer_config.json']); // prettier-ignore
    }
    expect(models[0]!.positive).toEqual([1]);
    expect(models[1]!.entities).toEqual({ PER: 'PERSON', LOC: 'LOCATION' });
  });

  it.each(['model.onnx', 'tokenizer.json', 'config.json', 'tokenizer_config.json'])(
    'refuses one changed byte in %s, naming the file',
    (file) => {
      const d = decls[2]!; // deberta-unigram-text
      const dir = mkdtempSync(path.join(root, 'tamper-'));
      const folder = path.join(dir, d.name);
      writeHfFixture(folder, 'deberta-unigram');
      const bytes = readFileSync(path.join(folder, file));
      const at = Math.floor(bytes.length / 2);
      bytes[at] = bytes[at]! ^ 1;
      writeFileSync(path.join(folder, file), bytes);
      writeExtraManifest(dir, [d]);
      expect(() => readExtraModels(dir)).toThrow(ExtraModelError);
      expect(() => readExtraModels(dir)).toThrow(new RegExp(`sha256 of ${folder.replace(/[.]/g, '\\.')}/${file.replace('.', '\\.')} is`)); // prettier-ignore
    },
  );
});

describe('a garbage model.onnx declared with its own sha256', () => {
  it('passes the declaration check and fails to load, text and token alike', async () => {
    const dir = mkdtempSync(path.join(root, 'garbage-'));
    const declared: ExtraModelDeclaration[] = [];
    for (const task of ['text-classification', 'token-classification'] as const) {
      const folder = path.join(dir, `garbage-${task.slice(0, 4)}`);
      const { declaration } = writeHfFixture(folder, 'roberta-bpe', { task });
      const junk = Buffer.from('this is not an onnx model '.repeat(40));
      writeFileSync(path.join(folder, 'model.onnx'), junk);
      declaration.sha256['model.onnx'] = createHash('sha256').update(junk).digest('hex');
      declared.push(declaration);
    }
    writeExtraManifest(dir, declared);
    const [text, token] = readExtraModels(dir);
    await expect(loadHfTextClassifier(text!)).rejects.toThrow();
    await expect(loadHfTokenClassifier(token!)).rejects.toThrow();
    // a task mismatch is refused before any session opens
    await expect(loadHfTokenClassifier(text!)).rejects.toThrow(/text-classification, not token-classification/);
  });

  it('a file changed after the start check is refused at load too', async () => {
    const dir = mkdtempSync(path.join(root, 'late-'));
    const folder = path.join(dir, 'late');
    const { declaration } = writeHfFixture(folder, 'bert-wordpiece');
    writeExtraManifest(dir, [declaration]);
    const [m] = readExtraModels(dir);
    writeFileSync(path.join(folder, 'tokenizer.json'), readFileSync(path.join(folder, 'tokenizer.json'), 'utf8') + ' ');
    await expect(loadHfTextClassifier(m!)).rejects.toThrow(/sha256 of .*tokenizer\.json/);
  });
});

/**
 * What the generic operator path costs against the built-in loader on the same real model:
 * pi-accurate exported by training/export-hf.ts (`npm run models:export-hf`), scored by
 * loadHfTextClassifier (inference/hf-classifier.ts: @huggingface/tokenizers + offset alignment,
 * windows in runs of similar length) and by loadOnnxClassifier (inference/text-classifier.ts: our
 * wordpiece-v1 tokenizer, all rows of a call padded together), one intra-op thread each as served.
 *
 *   npm run bench:hf-export -- [--texts N] [--batch B] [--reps R]
 *
 * Texts: the first N rows of every family of the public prompt-injection validation set, cut to the
 * model's max_chars (460) as the engine sends them. The two loaders alternate, R rounds, each scoring
 * every text in calls of B; reported: the median over rounds of ms per text for each, their ratio,
 * and the generic tokenizer's share (encode + windows alone, no session). Ratios, not absolute
 * times, are what carry over to another machine.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TextClassifier } from '../inference/classifier.ts';
import { readExtraModels } from '../inference/extra-models.ts';
import { loadHfTextClassifier } from '../inference/hf-classifier.ts';
import { loadHfTokenizer } from '../inference/hf-tokenizer.ts';
import { modelEntry, readManifest } from '../inference/manifest.ts';
import { loadOnnxClassifier, loadTokenizer } from '../inference/text-classifier.ts';
import { datasetsDir } from '../training/data/datasets.ts';
import { exportHf } from '../training/export-hf.ts';
import { machineInfo } from './processes.ts';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(v) || v < 1) throw new Error(`--${name} takes a positive integer`);
  return v;
};
const PER_FAMILY = arg('texts', 150);
const BATCH = arg('batch', 16);
const REPS = arg('reps', 5);

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

function texts(maxChars: number): string[] {
  const file = path.join(datasetsDir(), 'validation', 'injection_public.jsonl');
  const taken = new Map<string, number>();
  const out: string[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const r = JSON.parse(line) as { text: string; family?: string };
    const f = r.family ?? '';
    if ((taken.get(f) ?? 0) >= PER_FAMILY) continue;
    taken.set(f, (taken.get(f) ?? 0) + 1);
    out.push(r.text.slice(0, maxChars));
  }
  return out;
}

async function msPerText(c: TextClassifier, xs: readonly string[]): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < xs.length; i += BATCH) await c.scoreBatch(xs.slice(i, i + BATCH));
  return (performance.now() - t0) / xs.length;
}

async function main(): Promise<void> {
  const root = mkdtempSync(path.join(tmpdir(), 'hf-export-bench-'));
  try {
    exportHf({ model: 'pi-accurate', out: root });
    const [model] = readExtraModels(
      root,
      readManifest().models.map((m) => m.id),
    );
    const entry = modelEntry('pi-accurate');
    const xs = texts(entry.max_chars ?? 460);
    const builtIn = await loadOnnxClassifier(entry);
    const generic = await loadHfTextClassifier(model!);
    const ours = loadTokenizer(entry);
    const hf = loadHfTokenizer(model!);
    await msPerText(builtIn, xs.slice(0, 64));
    await msPerText(generic, xs.slice(0, 64));
    const a: number[] = [];
    const b: number[] = [];
    const ta: number[] = [];
    const tb: number[] = [];
    for (let r = 0; r < REPS; r++) {
      a.push(await msPerText(builtIn, xs));
      b.push(await msPerText(generic, xs));
      let t0 = performance.now();
      for (const x of xs) ours.encode(x);
      ta.push((performance.now() - t0) / xs.length);
      t0 = performance.now();
      for (const x of xs) hf.windows(hf.encode(x).ids, model!.maxTokens, model!.strideTokens);
      tb.push((performance.now() - t0) / xs.length);
    }
    const [ma, mb, mta, mtb] = [median(a), median(b), median(ta), median(tb)];
    const f = (n: number) => n.toFixed(3);
    process.stdout.write(
      [
        `machine: ${JSON.stringify(machineInfo())}`,
        `${xs.length} texts (≤ ${entry.max_chars} chars), calls of ${BATCH}, median of ${REPS} rounds, ms per text:`,
        `  built-in (loadOnnxClassifier)     ${f(ma)}   of which our tokenizer ${f(mta)}`,
        `  generic  (loadHfTextClassifier)   ${f(mb)}   of which tokenizer + alignment + windows ${f(mtb)}`,
        `  generic / built-in: ${(mb / ma).toFixed(2)}; tokenizer alone: ${(mtb / mta).toFixed(1)}×`,
        '',
      ].join('\n'),
    );
    await builtIn.release();
    await generic.release();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

await main();

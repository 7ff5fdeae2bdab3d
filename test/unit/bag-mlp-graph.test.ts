/**
 * inference/bag-mlp-graph.ts: the serving graphs of pii-ner (constant weights) and toxicity (weighted)
 * compute what the artifacts' training graphs compute, up to float rounding, and decode to the same
 * entities; anything that is not a bag-MLP artifact is left alone.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { bagMlpServingGraph } from '../../inference/bag-mlp-graph.ts';
import { MODELS_DIR, modelEntry } from '../../inference/manifest.ts';
import { toInt64 } from '../../inference/onnx-session.ts';
import { TextFeaturizer, type TextFeaturizerConfig } from '../../inference/text-features.ts';
import { decodeEntities, loadOnnxTokenClassifier } from '../../inference/token-classifier.ts';
import { TokenFeaturizer, type TokenFeaturizerConfig } from '../../inference/token-features.ts';
import { loadOnnxClassifier } from '../../inference/text-classifier.ts';
import { piiSynthEval } from '../../training/data/pii-synth.ts';
import { toxicityHardNegativesEval } from '../../training/data/hard-negatives.ts';
import { featurizeRows } from '../support/token-rows.ts';

const artifact = (id: string): Uint8Array => new Uint8Array(readFileSync(path.join(MODELS_DIR, modelEntry(id).file)));

function texts(): string[] {
  return [
    ...piiSynthEval()
      .slice(0, 120)
      .map((r) => r.text),
    ...toxicityHardNegativesEval(20, 3).map((h) => h.text),
    'My name is John Smith. I live at 221B Baker Street, London NW1 6XE.',
    "Dr. O'Brien-Fournier met ÉLODIE at the café in São Paulo 👋",
    'omg sarah just texted me lol',
    'word '.repeat(300),
    'x',
  ];
}

const opts = { intraOpNumThreads: 1, interOpNumThreads: 1 };

describe('bag-MLP serving graphs', () => {
  it('pii-ner: probabilities within 1e-6 of the artifact graph, and the same entities', async () => {
    const entry = modelEntry('pii-ner');
    const cfg = entry.featurizer as unknown as TokenFeaturizerConfig;
    const f = new TokenFeaturizer(cfg);
    const L = cfg.max_features;
    expect(f.featuresPerToken).toBe(L);
    const graph = bagMlpServingGraph(artifact('pii-ner'), { kind: 'constant', value: Math.fround(1 / Math.sqrt(L)) });
    expect(graph?.hasWeights).toBe(false);
    const ts = texts();
    const { toks, T, ids, vals } = featurizeRows(f, ts, L);
    const original = await ort.InferenceSession.create(artifact('pii-ner'), opts);
    const serving = await ort.InferenceSession.create(graph!.bytes, opts);
    const want = (
      await original.run({
        ids: new ort.Tensor('int64', toInt64(ids), [T, L]),
        weights: new ort.Tensor('float32', vals, [T, L]),
      })
    ).probs?.data as Float32Array;
    const got = (await serving.run({ ids: new ort.Tensor('int32', ids, [T, L]) })).probs?.data as Float32Array;
    expect(got.length).toBe(want.length);
    let maxDelta = 0;
    for (let i = 0; i < got.length; i++)
      maxDelta = Math.max(maxDelta, Math.abs((got[i] as number) - (want[i] as number)));
    expect(maxDelta).toBeLessThan(1e-6);
    // the loader (serving graph, reused buffers) decodes to what the artifact's probabilities decode to
    const ner = await loadOnnxTokenClassifier(entry);
    const C = entry.labels.length;
    let off = 0;
    const expected = toks.map((tk, i) => {
      const e = decodeEntities(tk, want, off * C, entry.labels, ts[i]);
      off += tk.length;
      return e;
    });
    const spans = (es: { start: number; end: number; label: string }[][]) =>
      es.map((e) => e.map((x) => `${x.start}-${x.end}:${x.label}`));
    for (let pass = 0; pass < 2; pass++) {
      const got2 = await ner.entitiesBatch(ts);
      expect(spans(got2)).toEqual(spans(expected));
      got2.forEach((es, i) =>
        es.forEach((e, j) => expect(Math.abs(e.confidence - expected[i]![j]!.confidence)).toBeLessThan(1e-6)),
      );
    }
    await Promise.all([original.release(), serving.release(), ner.release()]);
  });

  it('pii-ner: reused id buffers give what a fresh classifier gives, after a larger batch and side by side', async () => {
    const a = await loadOnnxTokenClassifier(modelEntry('pii-ner'));
    const b = await loadOnnxTokenClassifier(modelEntry('pii-ner'));
    const big = texts().slice(0, 60);
    const small = ['Call Sarah Connor in Los Angeles tomorrow.', 'Dana Scully works at the FBI in Washington.'];
    await a.entitiesBatch(big);
    const want = await b.entitiesBatch(small);
    expect(await a.entitiesBatch(small)).toEqual(want);
    const [x, y] = await Promise.all([a.entitiesBatch(small), a.entitiesBatch(big.slice(0, 5))]);
    expect(x).toEqual(want);
    expect(y).toEqual(await b.entitiesBatch(big.slice(0, 5)));
    await Promise.all([a.release(), b.release()]);
  });

  it('toxicity: scores within 1e-6 of the artifact graph', async () => {
    const entry = modelEntry('toxicity');
    const clf = await loadOnnxClassifier(entry);
    const original = await ort.InferenceSession.create(artifact('toxicity'), opts);
    const f = new TextFeaturizer(entry.featurizer as unknown as TextFeaturizerConfig);
    const ts = texts();
    const got = await clf.scoreBatch(ts);
    for (let i = 0; i < ts.length; i++) {
      const n = f.bag(ts[i] as string);
      const out = await original.run({
        ids: new ort.Tensor('int64', toInt64(f.ids.slice(0, n)), [1, n]),
        weights: new ort.Tensor('float32', f.values.slice(0, n), [1, n]),
      });
      expect(Math.abs((got[i] as number) - ((out.scores?.data as Float32Array)[0] as number))).toBeLessThan(1e-6);
    }
    await Promise.all([original.release(), clf.release()]);
  });

  it('leaves other graphs and malformed bytes alone', () => {
    expect(bagMlpServingGraph(artifact('pi-accurate'), { kind: 'weighted' })).toBeNull();
    expect(bagMlpServingGraph(new Uint8Array([0x3a, 0xff, 0x01]), { kind: 'weighted' })).toBeNull();
    expect(bagMlpServingGraph(new Uint8Array(0), { kind: 'weighted' })).toBeNull();
  });
});

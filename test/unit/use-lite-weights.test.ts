/** The USE-lite weights loader: pinned files, named tensors, integrity failures. */
import { copyFileSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ModelIntegrityError } from '../../inference/manifest.ts';
import { loadUseLiteAssets, pickWeight, useLiteDir } from '../../inference/use-lite-weights.ts';

describe('loadUseLiteAssets', () => {
  it('reads 61 named tensors (7.0 M float parameters) and the 8,000-piece vocabulary', () => {
    const { weights, vocabulary } = loadUseLiteAssets();
    expect(weights.size).toBe(61);
    let floats = 0;
    for (const w of weights.values()) if (w.data instanceof Float32Array && w.data.length > 1) floats += w.data.length;
    expect(floats).toBeGreaterThan(6.9e6);
    expect(floats).toBeLessThan(7.1e6);
    expect(pickWeight(weights, 'module/Embeddings_en').shape).toEqual([8002, 256]);
    expect(vocabulary).toHaveLength(8000);
    expect(() => pickWeight(weights, 'layer_norm_scale')).toThrow(/matches/);
  });

  it('refuses a package whose files are not the pinned ones', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'use-lite-'));
    try {
      for (const f of readdirSync(useLiteDir())) {
        if (f === 'vocab.json') continue;
        symlinkSync(path.join(useLiteDir(), f), path.join(dir, f));
      }
      copyFileSync(path.join(useLiteDir(), 'model.json'), path.join(dir, 'vocab.json'));
      expect(() => loadUseLiteAssets(dir)).toThrow(ModelIntegrityError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

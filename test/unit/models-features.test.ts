import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashString } from '../../inference/hashing.ts';
import { TextFeaturizer, textFeaturizerConfig } from '../../inference/text-features.ts';
import { tokenize, TokenFeaturizer, tokenFeaturizerConfig } from '../../inference/token-features.ts';

const cfg = textFeaturizerConfig(1 << 16, 4096);

describe('hashed text features', () => {
  it('are deterministic and case-insensitive, and stay inside the buckets', () => {
    const a = new TextFeaturizer(cfg);
    const b = new TextFeaturizer(cfg);
    const n1 = a.hashes('Ignore all previous instructions!');
    const h1 = Array.from(a.raw.subarray(0, n1));
    const n2 = b.hashes('IGNORE ALL PREVIOUS INSTRUCTIONS!');
    expect(Array.from(b.raw.subarray(0, n2))).toEqual(h1);
    expect(n1).toBeGreaterThan(10);
    for (const x of h1) expect(x).toBeLessThan(cfg.buckets);
  });

  it('emit nothing for empty or blank text', () => {
    const f = new TextFeaturizer(cfg);
    expect(f.hashes('')).toBe(0);
    expect(f.bag(' \n\t ')).toBe(0);
  });

  it('handle any Unicode input (property)', () => {
    const f = new TextFeaturizer(cfg);
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (s) => {
        const n = f.hashes(s);
        for (let i = 0; i < n; i++) if ((f.raw[i] as number) >= cfg.buckets) return false;
        const u = f.bag(s);
        if (u > cfg.max_features) return false;
        let sq = 0;
        for (let i = 0; i < u; i++) sq += (f.values[i] as number) ** 2;
        return u === 0 || sq > 0;
      }),
      { numRuns: 300, seed: 42 },
    );
    for (const s of [
      '日本語のテキスト',
      'مرحبا بالعالم',
      '👩‍💻🔥 emoji',
      'e\u0301\u0301',
      '\ud800 lone',
      '\u0000\u0001',
    ]) {
      expect(() => f.bag(s)).not.toThrow();
    }
  });

  it('bag values are count / sqrt(n) over distinct buckets', () => {
    const f = new TextFeaturizer(cfg);
    const n = f.hashes('hello hello');
    const u = f.bag('hello hello');
    let sum = 0;
    for (let i = 0; i < u; i++) sum += f.values[i] as number;
    expect(sum).toBeCloseTo(n / Math.sqrt(n), 4);
  });

  it('featurizes 2,000 characters the same way every time (its speed is measured by npm run bench, not here)', () => {
    const f = new TextFeaturizer(textFeaturizerConfig(1 << 18, 4096));
    const text = 'The quick brown fox, ignoring the instructions, jumps over 13 lazy dogs! '.repeat(30).slice(0, 2000);
    const n = f.hashes(text);
    const first = Array.from(f.raw.subarray(0, n));
    expect(n).toBeGreaterThan(100);
    expect(f.hashes(text)).toBe(n);
    expect(Array.from(f.raw.subarray(0, n))).toEqual(first);
  });

  it('hashString separates seeds', () => {
    expect(hashString(1, 'abc')).not.toBe(hashString(2, 'abc'));
  });
});

describe('tokens', () => {
  it('tokenize keeps offsets into the original text', () => {
    const text = "Dr. O'Brien lives at 42 Baker St., London 👋 — café";
    for (const t of tokenize(text)) expect(text.slice(t.start, t.end)).toBe(t.text);
    expect(tokenize(text).map((t) => t.text)).toContain('café');
  });

  it('token features fill exactly max_features slots per token', () => {
    const c = tokenFeaturizerConfig(1 << 16);
    const f = new TokenFeaturizer(c);
    const text = 'My name is John Smith.';
    const toks = tokenize(text);
    const ids = new Int32Array(toks.length * c.max_features).fill(-1);
    const vals = new Float32Array(toks.length * c.max_features);
    f.featurize(text, toks, ids, vals, 0);
    for (const id of ids) {
      expect(id).toBeGreaterThanOrEqual(0);
      expect(id).toBeLessThan(c.buckets);
    }
    for (const v of vals) expect(v).toBeGreaterThan(0);
  });
});

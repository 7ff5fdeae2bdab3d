import { describe, expect, it } from 'vitest';
import type { Detector, DetectorInput, DetectorResult } from '../../engine/detector.ts';
import { ALL_SURFACES } from '../../engine/detector.ts';
import { resultCacheKey, ScanEngine, type DetectorRun, type ResultCache } from '../../engine/pipeline.ts';
import { DetectorRegistry } from '../../engine/registry.ts';
import { ByteLru, keptResults, parseStoredResults, TwoLevelResultCache } from '../../services/result-cache.ts';

const THRESHOLDS = { warn_above: 0.5, flag_above: 0.7, block_above: 0.9 };

/** A detector scoring by a function of the text, counting its calls; `note` makes its result degraded. */
function fakeDetector(name: string, score: (text: string) => number, opts: { note?: string; async?: boolean } = {}) {
  const calls: string[] = [];
  const detector: Detector = {
    name,
    version: '1.0.0',
    model: `${name}-model@1`,
    kind: 'score',
    category: 'policy',
    surfaces: ALL_SURFACES,
    thresholds: THRESHOLDS,
    frameworks: { owasp_agentic: [], owasp_llm: [], mitre_atlas: [] },
    detect(input: DetectorInput) {
      calls.push(input.text.original);
      const result: DetectorResult = {
        detector: name,
        score: score(input.text.original),
        items: [{ text: input.text.original.slice(0, 3), label: name, confidence: 0.9, source: 'rule', span: [0, 3] }],
        ...(opts.note ? { note: opts.note } : {}),
      };
      return opts.async ? Promise.resolve(result) : result;
    },
  };
  return { detector, calls };
}

/** An in-memory ResultCache spy over the real local LRU. */
function spyCache() {
  const cache = new TwoLevelResultCache({ maxBytes: 1 << 20, redis: null, prefix: 't:', ttlSeconds: 60 });
  const log: string[] = [];
  const spy: ResultCache = {
    get: (key, text) => {
      const r = cache.get(key, text);
      log.push(r ? 'hit' : 'miss');
      return r;
    },
    set: (key, results) => {
      log.push('set');
      cache.set(key, results);
    },
  };
  return { spy, log };
}

const deadlineAt = () => Date.now() + 5_000;

describe('ByteLru', () => {
  it('stays within its byte bound, evicting the least recently used first', () => {
    const value = 'x'.repeat(100);
    const one = 2 * (2 + value.length) + 96;
    const lru = new ByteLru(one * 3);
    lru.set('k1', value);
    lru.set('k2', value);
    lru.set('k3', value);
    expect(lru.bytes).toBe(one * 3);
    expect(lru.get('k1')).toBe(value); // k1 is now the most recent: k2 goes first
    lru.set('k4', value);
    expect(lru.size).toBe(3);
    expect(lru.get('k2')).toBeUndefined();
    expect(lru.get('k1')).toBe(value);
    lru.set('k5', value);
    expect(lru.get('k3')).toBeUndefined();
    expect([lru.get('k4'), lru.get('k5')]).toEqual([value, value]);
    expect(lru.bytes).toBeLessThanOrEqual(lru.maxBytes);
  });

  it('replaces a key in place and never keeps a value larger than the bound', () => {
    const lru = new ByteLru(1_000);
    lru.set('a', 'short');
    lru.set('a', 'longer value');
    expect(lru.size).toBe(1);
    expect(lru.bytes).toBe(2 * (1 + 'longer value'.length) + 96);
    lru.set('big', 'y'.repeat(1_000));
    expect(lru.get('big')).toBeUndefined();
    expect(lru.get('a')).toBe('longer value');
  });
});

describe('parseStoredResults', () => {
  const good: DetectorResult[] = [
    {
      detector: 'pii',
      score: 0.9,
      items: [{ text: 'a', label: 'EMAIL', confidence: 1, source: 'regex', span: [0, 1] }],
    },
    { detector: 'prompt_injection', score: 0.1, items: [], thresholds: THRESHOLDS },
  ];

  it("reads back what was stored: the results without their items' matched text (also from an entry written with it)", () => {
    const kept = keptResults(good);
    expect(kept[0]!.items[0]).toEqual({ label: 'EMAIL', confidence: 1, source: 'regex', span: [0, 1] });
    expect(parseStoredResults(JSON.stringify(kept))).toEqual(kept);
    expect(parseStoredResults(JSON.stringify(good))).toEqual(kept);
  });

  it('answers undefined (a miss) for anything that is not a list of detector results', () => {
    for (const bad of [
      'not json',
      '{"detector":"pii"}',
      '[{"detector":"pii","score":"high","items":[]}]',
      '[{"detector":"pii","score":2,"items":[]}]',
      '[{"detector":"pii","score":0.5,"items":[{"text":"a","label":"X","confidence":1,"source":"r","span":[0]}]}]',
      'null',
    ])
      expect(parseStoredResults(bad), bad).toBeUndefined();
  });
});

describe('TwoLevelResultCache', () => {
  it("keeps no matched text: a hit takes each item's text from its span over the scan's own text", () => {
    const cache = new TwoLevelResultCache({ maxBytes: 1 << 20, redis: null, prefix: 't:', ttlSeconds: 60 });
    const text = 'mail jane.roe@example.com, SSN 536-22-7788';
    const found: DetectorResult[] = [
      {
        detector: 'pii',
        score: 0.95,
        items: [
          { text: 'jane.roe@example.com', label: 'EMAIL_ADDRESS', confidence: 0.95, source: 'regex', span: [5, 25] },
          { text: '536-22-7788', label: 'US_SSN', confidence: 0.9, source: 'regex', span: [31, 42] },
        ],
      },
    ];
    cache.set('k', found);
    expect(cache.local.get('k')).not.toMatch(/jane|536-22/);
    expect(cache.get('k', text)).toEqual(found);
  });
});

describe('ScanEngine with a result cache', () => {
  it('answers a repeated text from the cache with the same results, a fresh decision and every run streamed', async () => {
    const a = fakeDetector('alpha', (t) => (t.includes('bad') ? 0.8 : 0.1));
    const b = fakeDetector('beta', () => 0.2, { async: true });
    const { spy, log } = spyCache();
    const engine = new ScanEngine(new DetectorRegistry([a.detector, b.detector]), undefined, spy);
    const input = { surface: 'user_message' as const, text: 'a bad text', tier: 'fast' as const, cacheScope: 'org_1' };
    const first = await engine.scan(input, { deadlineAt: deadlineAt() });
    const streamed: DetectorRun[] = [];
    const second = await engine.scan(input, { deadlineAt: deadlineAt(), onResult: (r) => streamed.push(r) });
    expect(log).toEqual(['miss', 'set', 'hit']);
    expect(a.calls).toHaveLength(1);
    expect(b.calls).toHaveLength(1);
    expect(second.runs.map((r) => r.result)).toEqual(first.runs.map((r) => r.result));
    expect(second.decision).toEqual(first.decision);
    expect(streamed.map((r) => r.result.detector)).toEqual(['alpha', 'beta']);
    // a hit is a copy: changing it does not change what the next scan gets
    second.runs[0]!.result.items.length = 0;
    const third = await engine.scan(input, { deadlineAt: deadlineAt() });
    expect(third.runs[0]!.result.items).toHaveLength(1);
  });

  it('keys by scope, surface, tier, detector set and exact text', async () => {
    const a = fakeDetector('alpha', () => 0.1);
    const b = fakeDetector('beta', () => 0.1);
    const { spy } = spyCache();
    const engine = new ScanEngine(new DetectorRegistry([a.detector, b.detector]), undefined, spy);
    const base = { surface: 'user_message' as const, text: 'same text', tier: 'fast' as const, cacheScope: 'org_1' };
    const variants = [
      base,
      { ...base, cacheScope: 'org_2' },
      { ...base, surface: 'document' as const },
      { ...base, tier: 'accurate' as const },
      { ...base, detectors: ['alpha'] },
      { ...base, text: 'same text ' },
    ];
    for (const v of variants) await engine.scan(v, { deadlineAt: deadlineAt() });
    expect(a.calls).toHaveLength(variants.length);
    const key = (d: Detector[]) => resultCacheKey('org_1', 'user_message', 'fast', d, 'same text');
    expect(key([a.detector])).not.toBe(key([a.detector, b.detector]));
    expect(key([{ ...a.detector, version: '1.0.1' }])).not.toBe(key([a.detector]));
    expect(key([{ ...a.detector, model: 'alpha-model@2' }])).not.toBe(key([a.detector]));
  });

  it('does not keep degraded results, nor look up scans without a scope or with precomputed results', async () => {
    const ok = fakeDetector('alpha', () => 0.1);
    const degraded = fakeDetector('beta', () => 0, { note: 'model_unavailable;reason=model_not_loaded' });
    const { spy, log } = spyCache();
    let skipped = 0;
    const engine = new ScanEngine(
      new DetectorRegistry([ok.detector, degraded.detector]),
      { detector: () => undefined, cacheSkipped: () => skipped++ },
      spy,
    );
    const input = { surface: 'user_message' as const, text: 'text', tier: 'fast' as const, cacheScope: 'org_1' };
    await engine.scan(input, { deadlineAt: deadlineAt() });
    await engine.scan(input, { deadlineAt: deadlineAt() });
    expect(log).toEqual(['miss', 'miss']);
    expect(degraded.calls).toHaveLength(2);

    await engine.scan({ ...input, cacheScope: undefined }, { deadlineAt: deadlineAt() });
    const precomputed = new Map([['beta', { detector: 'beta', score: 0, items: [] }]]);
    await engine.scan({ ...input, detectors: ['alpha'], precomputed }, { deadlineAt: deadlineAt() });
    await engine.scan({ ...input, text: null }, { deadlineAt: deadlineAt() });
    expect(log).toEqual(['miss', 'miss']);
    expect(skipped).toBe(3);
  });

  it('treats a cached list that does not match the selected detectors as a miss', async () => {
    const a = fakeDetector('alpha', () => 0.1);
    const wrong: ResultCache = { get: () => [{ detector: 'other', score: 1, items: [] }], set: () => undefined };
    const engine = new ScanEngine(new DetectorRegistry([a.detector]), undefined, wrong);
    const out = await engine.scan(
      { surface: 'user_message', text: 'text', tier: 'fast', cacheScope: 'org_1' },
      { deadlineAt: deadlineAt() },
    );
    expect(out.runs.map((r) => r.result.detector)).toEqual(['alpha']);
    expect(a.calls).toHaveLength(1);
  });

  it('an identical scan arriving while the first runs waits for its results instead of computing them again', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const calls: string[] = [];
    let degrade = false;
    const slow: Detector = {
      ...fakeDetector('slow', () => 0).detector,
      async detect(input: DetectorInput) {
        calls.push(input.text.original);
        await gate;
        return { detector: 'slow', score: 0.3, items: [], ...(degrade ? { note: 'model_unavailable;reason=x' } : {}) };
      },
    };
    const { spy, log } = spyCache();
    let joined = 0;
    const engine = new ScanEngine(
      new DetectorRegistry([slow]),
      { detector: () => undefined, cacheJoined: () => joined++ },
      spy,
    );
    const input = {
      surface: 'user_message' as const,
      text: 'system prompt',
      tier: 'fast' as const,
      cacheScope: 'org_1',
    };
    const burst = [1, 2, 3].map(() => engine.scan(input, { deadlineAt: deadlineAt() }));
    open();
    const outcomes = await Promise.all(burst);
    expect(calls).toHaveLength(1);
    expect(joined).toBe(2);
    expect(log).toEqual(['miss', 'set']);
    for (const o of outcomes) expect(o.runs[0]!.result).toEqual({ detector: 'slow', score: 0.3, items: [] });
    expect(outcomes[1]!.runs[0]!.result).not.toBe(outcomes[0]!.runs[0]!.result);
    // another scope does not join
    await engine.scan({ ...input, cacheScope: 'org_2' }, { deadlineAt: deadlineAt() });
    expect(calls).toHaveLength(2);

    // a degraded first result is not shared: the waiting scans compute their own
    degrade = true;
    const fresh = { ...input, text: 'another prompt' };
    await Promise.all([
      engine.scan(fresh, { deadlineAt: deadlineAt() }),
      engine.scan(fresh, { deadlineAt: deadlineAt() }),
    ]);
    expect(calls.filter((t) => t === 'another prompt')).toHaveLength(2);
    expect(joined).toBe(2);
  });
});

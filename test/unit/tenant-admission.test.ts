import { describe, expect, it } from 'vitest';
import { withoutOverlaps } from '../../engine/detectors/pii.ts';
import type { FindingItem } from '../../engine/detector.ts';
import { ModelCancelledError, ModelDeadlineError, ModelOverloadedError } from '../../engine/model-client.ts';
import { TenantGate } from '../../engine/tenant-gate.ts';
import { TenantQueues } from '../../lib/tenant-queues.ts';

describe('TenantQueues', () => {
  it('serves the least recently served tenant first; FIFO within a tenant', () => {
    const q = new TenantQueues<string>();
    for (const x of ['a1', 'a2', 'a3']) q.push('a', x);
    expect(q.take()).toBe('a1');
    q.push('b', 'b1');
    // b was never served: it goes before a, served a moment ago
    expect([q.take(), q.take(), q.take(), q.take()]).toEqual(['b1', 'a2', 'a3', undefined]);
    expect(q.size).toBe(0);
  });

  it('fill offers waiting items in turn order and removes those taken; remove and drain keep the count', () => {
    const q = new TenantQueues<number>();
    for (const n of [1, 2, 3]) q.push('a', n);
    for (const n of [10, 20]) q.push('b', n);
    const taken: number[] = [];
    q.fill(2, (n) => (n % 2 === 0 ? (taken.push(n), true) : false));
    expect(taken).toEqual([2, 10, 20]);
    expect([q.size, q.sizeOf('a'), q.sizeOf('b')]).toEqual([2, 2, 0]);
    expect(q.remove('a', (n) => n === 3)).toBe(1);
    expect(q.drain()).toEqual([1]);
    expect(q.size).toBe(0);
  });
});

describe('TenantGate: long scans per organization', () => {
  it('admits perTenant at once; the next waits its turn, other tenants do not', async () => {
    const gate = new TenantGate(1);
    const first = await gate.acquire('a', Date.now() + 5_000);
    let second: (() => void) | null = null;
    const waiting = gate.acquire('a', Date.now() + 5_000).then((r) => (second = r));
    const other = await gate.acquire('b', Date.now() + 5_000);
    await new Promise((r) => setImmediate(r));
    expect(second).toBeNull();
    first();
    first(); // a second release is a no-op
    await waiting;
    expect(second).not.toBeNull();
    expect([gate.inProgress('a'), gate.inProgress('b')]).toEqual([1, 1]);
    second!();
    other();
    expect([gate.inProgress('a'), gate.inProgress('b')]).toEqual([0, 0]);
  });

  it('a waiter past its deadline gets ModelDeadlineError, an aborted one ModelCancelledError', async () => {
    const gate = new TenantGate(1);
    const held = await gate.acquire('a', Date.now() + 5_000);
    await expect(gate.acquire('a', Date.now() + 10)).rejects.toBeInstanceOf(ModelDeadlineError);
    const gone = new AbortController();
    const leaving = gate.acquire('a', Date.now() + 5_000, gone.signal);
    gone.abort();
    await expect(leaving).rejects.toBeInstanceOf(ModelCancelledError);
    held();
    expect(gate.inProgress('a')).toBe(0);
  });

  it('refuses past 64 waiting for one tenant', async () => {
    const gate = new TenantGate(1);
    await gate.acquire('a', Date.now() + 60_000);
    const waiters = Array.from({ length: 64 }, () => gate.acquire('a', Date.now() + 60_000));
    await expect(gate.acquire('a', Date.now() + 60_000)).rejects.toBeInstanceOf(ModelOverloadedError);
    void Promise.allSettled(waiters);
  });
});

describe('withoutOverlaps (PII: NER items a regex item already covers)', () => {
  it('agrees with the pairwise check on random spans', () => {
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31), seed % n);
    const item = (s: number, len: number): FindingItem => ({
      text: '',
      label: 'X',
      confidence: 1,
      source: 'r',
      span: [s, s + len],
    });
    for (let round = 0; round < 200; round++) {
      const winners = Array.from({ length: rnd(8) }, () => item(rnd(200), 1 + rnd(20)));
      const candidates = Array.from({ length: rnd(12) }, () => item(rnd(200), rnd(25)));
      const pairwise = candidates.filter((c) => !winners.some((w) => w.span[0] < c.span[1] && c.span[0] < w.span[1]));
      expect(withoutOverlaps(candidates, winners)).toEqual(pairwise);
    }
  });
});

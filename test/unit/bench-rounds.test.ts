import { describe, expect, it } from 'vitest';
import { median, medianRatios, medianScaling, targetChecks, targetsOf, type Check } from '../../benchmarks/rounds.ts';

const c = (value: number, met: boolean, name = 'p99'): Check => ({ name, target: '≤ 25 ms', value, unit: ' ms', met });

describe('benchmark rounds', () => {
  it('median: odd and even counts, input order irrelevant', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
    expect(() => median([])).toThrow();
  });

  it('one round: targets as measured, no numbering, no median', () => {
    expect(targetsOf([c(20, true)])).toEqual([{ name: 'p99', target: '≤ 25 ms', value: '20 ms', met: true }]);
  });

  it('several rounds: each numbered, then the median, met as the median check is', () => {
    const t = targetsOf([c(30, false), c(20, true), c(24, true), c(10, true, 'other')]);
    expect(t.map((x) => x.name)).toEqual(['p99 #1', 'p99 #2', 'p99 #3', 'p99 (median of 3)', 'other']);
    expect(t[3]).toEqual({ name: 'p99 (median of 3)', target: '≤ 25 ms', value: '24 ms', met: true });
    // even count: both middle checks must meet
    expect(targetsOf([c(20, true), c(26, false)]).at(-1)).toMatchObject({ value: '23 ms', met: false });
  });

  it('median ratios group names that differ only by round', () => {
    const r = (k: number, value: number) => ({
      name: `scans #${k} / echo #${k}`,
      of: `scans #${k}`,
      to: `echo #${k}`,
      value,
    });
    expect(medianRatios([r(1, 0.1), r(2, 0.3), r(3, 0.2), { name: 'a / b', of: 'a', to: 'b', value: 1 }])).toEqual([
      { name: 'scans / echo (median of 3)', of: 'scans', to: 'echo', value: 0.2 },
    ]);
  });

  it('median ratios: to each echo, and the durable echo to the bare one, each its own median', () => {
    const r = (of: string, to: string, k: number, value: number) => ({
      name: `${of} #${k} / ${to} #${k}`,
      of: `${of} #${k}`,
      to: `${to} #${k}`,
      value,
    });
    const values = [
      [0.51, 0.21, 0.43],
      [0.53, 0.22, 0.41],
      [0.52, 0.23, 0.42],
    ];
    const rounds = values.flatMap(([durable, vsEcho, vsDurable], i) => [
      r('durable-echo', 'echo', i + 1, durable!),
      r('scans', 'echo', i + 1, vsEcho!),
      r('scans', 'durable-echo', i + 1, vsDurable!),
    ]);
    expect(medianRatios(rounds)).toEqual([
      { name: 'durable-echo / echo (median of 3)', of: 'durable-echo', to: 'echo', value: 0.52 },
      { name: 'scans / echo (median of 3)', of: 'scans', to: 'echo', value: 0.22 },
      { name: 'scans / durable-echo (median of 3)', of: 'scans', to: 'durable-echo', value: 0.42 },
    ]);
  });

  it('scaling rows: median per process count', () => {
    const row = (processes: number, req: number, eff: number) => ({
      processes,
      req_per_s: req,
      efficiency: eff,
      vs_echo: eff / 10,
      vs_durable_echo: eff / 5,
    });
    expect(medianScaling([])).toBeNull();
    expect(medianScaling([[row(1, 100, 1)]])).toEqual([row(1, 100, 1)]);
    expect(
      medianScaling([
        [row(1, 100, 1), row(2, 120, 0.6)],
        [row(1, 90, 1), row(2, 150, 0.8)],
        [row(1, 110, 1), row(2, 130, 0.5)],
      ]),
    ).toEqual([
      { processes: 1, req_per_s: 100, efficiency: 1, vs_echo: 0.1, vs_durable_echo: 0.2 },
      { processes: 2, req_per_s: 130, efficiency: 0.6, vs_echo: 0.06, vs_durable_echo: 0.12 },
    ]);
  });

  it("issue 41's targets: standard fast vs both echoes and p99, mix auto; issue 25's document; none elsewhere", () => {
    const run = {
      scenario: 'standard',
      tier: 'fast',
      cluster: null,
      connections: 50,
      body_chars: 1_000,
      vs_echo: 0.4,
      vs_durable_echo: 0.55,
      p95_ms: 30,
      p99_ms: 50,
    };
    expect(targetChecks(run).map((c) => [c.name, c.target, c.value, c.met])).toEqual([
      ['standard, tier fast: throughput vs echo', '≥ 0.35', 0.4, true],
      ['standard, tier fast: throughput vs durable echo', '≥ 0.60', 0.55, false],
      ['standard, tier fast: p99', '≤ 50 ms', 50, true],
    ]);
    expect(targetChecks({ ...run, vs_durable_echo: 0.6, p99_ms: 51 }).map((c) => c.met)).toEqual([true, true, false]);
    expect(targetChecks({ ...run, cluster: 2 })).toEqual([]);
    expect(targetChecks({ ...run, tier: 'accurate' })).toEqual([]);
    const mix = { ...run, scenario: 'mix', tier: 'auto', body_chars: 0, vs_echo: 0.19 };
    expect(targetChecks(mix)).toMatchObject([{ target: '≥ 0.20', value: 0.19, met: false }]);
    expect(targetChecks({ ...mix, vs_echo: 0.2 })).toMatchObject([{ met: true }]);
    const doc = { ...run, scenario: 'document', tier: 'auto', connections: 1, body_chars: 30_000, p95_ms: 120 };
    expect(targetChecks(doc)).toMatchObject([{ target: '≤ 150 ms', value: 120, met: true }]);
    expect(targetChecks({ ...doc, connections: 8 })).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { formatServiceMetrics, labelsOf, parseCounters, serviceMetrics } from '../../benchmarks/service-metrics.ts';

const exposition = (early: number, full: number, hits?: number) => `# HELP cf_detector_cascade_total Auto-tier scans
# TYPE cf_detector_cascade_total counter
cf_detector_cascade_total{detector="prompt_injection",stage="early"} ${early}
cf_detector_cascade_total{detector="prompt_injection",stage="full"} ${full}
cf_scan_duration_seconds_count{tier="auto"} 99
${hits === undefined ? '' : `cf_scan_cache_total{result="hit",level="local"} ${hits}\ncf_scan_cache_total{result="miss",level="local"} 10\n`}`;

describe('benchmark service counters', () => {
  it('parses only the scraped counters, keyed by series', () => {
    const c = parseCounters(exposition(5, 1, 2));
    expect([...c.keys()]).toEqual([
      'cf_detector_cascade_total{detector="prompt_injection",stage="early"}',
      'cf_detector_cascade_total{detector="prompt_injection",stage="full"}',
      'cf_scan_cache_total{result="hit",level="local"}',
      'cf_scan_cache_total{result="miss",level="local"}',
    ]);
    expect(labelsOf('x{a="1",b="two words"}')).toEqual({ a: '1', b: 'two words' });
  });

  it('reports deltas: the encoder share per detector and the cache hit share', () => {
    const m = serviceMetrics(parseCounters(exposition(5, 1, 2)), parseCounters(exposition(35, 11, 32)));
    expect(m.cascade).toEqual([{ detector: 'prompt_injection', early: 30, full: 10, encoder_share: 0.25 }]);
    expect(m.cache).toEqual([{ labels: 'result=hit level=local', count: 30 }]);
    expect(m.cache_hit_share).toBe(1);
    expect(formatServiceMetrics(m)).toContain('prompt_injection 25% (10 of 40)');
  });

  it('tolerates a service without a result cache, and series new after the first scrape', () => {
    const m = serviceMetrics(new Map(), parseCounters(exposition(3, 1)));
    expect(m.cascade[0]).toMatchObject({ early: 3, full: 1, encoder_share: 0.25 });
    expect(m.cache).toBeNull();
    expect(m.cache_hit_share).toBeNull();
    expect(formatServiceMetrics(m)).toContain('no result cache counters');
  });

  it("reports an operator's model's share of the scans it was due on, per model and tier", () => {
    const runs = (low: number, high: number, full: number, fb: number) =>
      parseCounters(
        [
          `cf_extra_model_runs_total{model="pi-hf",tier="auto",stage="early_low"} ${low}`,
          `cf_extra_model_runs_total{model="pi-hf",tier="auto",stage="early_high"} ${high}`,
          `cf_extra_model_runs_total{model="pi-hf",tier="auto",stage="full"} ${full}`,
          `cf_extra_model_runs_total{model="pi-hf",tier="auto",stage="fallback"} ${fb}`,
          `cf_extra_model_runs_total{model="pi-hf",tier="accurate",stage="full"} 7`,
        ].join('\n'),
      );
    const m = serviceMetrics(runs(10, 1, 2, 0), runs(150, 11, 42, 1));
    expect(m.extra).toEqual([
      { model: 'pi-hf', tier: 'auto', early_low: 140, early_high: 10, full: 40, fallback: 1, model_share: 0.209 },
    ]);
    expect(formatServiceMetrics(m)).toContain('pi-hf auto ran on 20.9% (40 of 191');
    expect(serviceMetrics(new Map(), new Map()).extra).toEqual([]);
  });
});

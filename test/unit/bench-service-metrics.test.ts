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
});

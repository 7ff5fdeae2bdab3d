/**
 * What the service itself counted during a run, from its Prometheus endpoint (GET /metrics, scraped
 * before and after): the auto tier's cascade per detector (`cf_detector_cascade_total`, stage early:
 * decided by the cheap models, full: went on to the sentence encoder), the operators' models' runs
 * (`cf_extra_model_runs_total`, per model and tier: early_low / early_high decided without the model,
 * full it answered, fallback it could not) and, when the service has a result cache, its lookups
 * (`cf_scan_cache_total`, by whatever labels it carries). Pure parsing and
 * arithmetic here, unit-tested; bench.ts does the scraping.
 */

/** Counter values by series (`name{labels}` exactly as exposed). */
export type Counters = Map<string, number>;

export const SCRAPED = ['cf_detector_cascade_total', 'cf_extra_model_runs_total', 'cf_scan_cache_total'] as const;

/** The series of the counters `names` in Prometheus text exposition (comments and other metrics skipped). */
export function parseCounters(text: string, names: readonly string[] = SCRAPED): Counters {
  const out: Counters = new Map();
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const name = line.slice(0, line.search(/[{ ]/));
    if (!names.includes(name)) continue;
    const space = line.lastIndexOf(' ');
    const value = Number(line.slice(space + 1));
    if (Number.isFinite(value)) out.set(line.slice(0, space), value);
  }
  return out;
}

/** `{a="x",b="y"}` → { a: 'x', b: 'y' } */
export function labelsOf(series: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of series.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) out[m[1]!] = m[2]!;
  return out;
}

export interface CascadeRow {
  detector: string;
  early: number;
  full: number;
  /** full / (early + full): the share of this detector's auto-tier scans that reached the encoder. */
  encoder_share: number;
}

const EXTRA_STAGES = ['early_low', 'early_high', 'full', 'fallback'] as const;

export interface ExtraModelRow {
  model: string;
  tier: string;
  early_low: number;
  early_high: number;
  full: number;
  fallback: number;
  /** full / (early_low + early_high + full + fallback): the share of the scans it was due on that it ran on. */
  model_share: number;
}

export interface ServiceMetrics {
  cascade: CascadeRow[];
  /** Operators' models (EXTRA_MODELS_DIR) by model and tier; empty without any. */
  extra: ExtraModelRow[];
  /** Lookups by label set (e.g. `result=hit level=local`); null when the service exposes no cache counter. */
  cache: { labels: string; count: number }[] | null;
  /** hits / (hits + misses) over all levels; null without cache counters or lookups. */
  cache_hit_share: number | null;
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;

/** The run's counts: `after` − `before` per series (a series new in `after` counts from 0). */
export function serviceMetrics(before: Counters, after: Counters): ServiceMetrics {
  const delta = [...after].map(([series, v]) => ({ series, n: v - (before.get(series) ?? 0) }));
  const byDetector = new Map<string, CascadeRow>();
  const byModel = new Map<string, ExtraModelRow>();
  const cache: { labels: string; count: number }[] = [];
  let hits = 0;
  let misses = 0;
  for (const { series, n } of delta) {
    const labels = labelsOf(series);
    if (series.startsWith('cf_detector_cascade_total')) {
      const detector = labels.detector ?? '';
      const row = byDetector.get(detector) ?? { detector, early: 0, full: 0, encoder_share: 0 };
      if (labels.stage === 'early') row.early += n;
      else if (labels.stage === 'full') row.full += n;
      byDetector.set(detector, row);
    } else if (series.startsWith('cf_extra_model_runs_total')) {
      const key = `${labels.model ?? ''} ${labels.tier ?? ''}`;
      const row = byModel.get(key) ?? { model: labels.model ?? '', tier: labels.tier ?? '', early_low: 0, early_high: 0, full: 0, fallback: 0, model_share: 0 }; // prettier-ignore
      const stage = EXTRA_STAGES.find((st) => st === labels.stage);
      if (stage) row[stage] += n;
      byModel.set(key, row);
    } else if (series.startsWith('cf_scan_cache_total')) {
      const text = Object.entries(labels)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ');
      cache.push({ labels: text, count: n });
      if (labels.result === 'hit') hits += n;
      else if (labels.result === 'miss') misses += n;
    }
  }
  const cascade = [...byDetector.values()]
    .map((r) => ({ ...r, encoder_share: r.early + r.full > 0 ? round3(r.full / (r.early + r.full)) : 0 }))
    .filter((r) => r.early + r.full > 0);
  const extra = [...byModel.values()]
    .map((r) => ({ ...r, model_share: round3(r.full / Math.max(1, r.early_low + r.early_high + r.full + r.fallback)) }))
    .filter((r) => r.early_low + r.early_high + r.full + r.fallback > 0);
  const hasCache = [...after.keys()].some((s) => s.startsWith('cf_scan_cache_total'));
  return {
    cascade,
    extra,
    cache: hasCache ? cache.filter((c) => c.count > 0) : null,
    cache_hit_share: hasCache && hits + misses > 0 ? round3(hits / (hits + misses)) : null,
  };
}

/** `encoder: prompt_injection 12.5% (50 of 400) · cache: hits 8% (result=hit level=local 32, …)` */
export function formatServiceMetrics(m: ServiceMetrics): string {
  const cascade = m.cascade.length
    ? m.cascade
        .map((r) => `${r.detector} ${round3(r.encoder_share * 100)}% (${r.full} of ${r.early + r.full})`)
        .join(', ')
    : 'no auto-tier cascade';
  const cache =
    m.cache === null
      ? 'no result cache counters'
      : `hits ${m.cache_hit_share === null ? '–' : `${round3(m.cache_hit_share * 100)}%`} (${m.cache.map((c) => `${c.labels} ${c.count}`).join(', ') || 'no lookups'})`;
  const extra = m.extra.length
    ? `; operators' models: ${m.extra
        .map(
          (r) =>
            `${r.model} ${r.tier} ran on ${round3(r.model_share * 100)}% (${r.full} of ${r.early_low + r.early_high + r.full + r.fallback}: early_low ${r.early_low}, early_high ${r.early_high}, fallback ${r.fallback})`,
        )
        .join(', ')}`
    : '';
  return `reached the encoder: ${cascade}${extra}; cache: ${cache}`;
}

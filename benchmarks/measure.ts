/**
 * One recorded autocannon run: every response's latency (the instance's 'response' event) and the
 * responses completed in each second (its 'tick'), from which the report draws the latency histogram
 * and the throughput-over-time plot; a progress line on stderr while it runs.
 */
import autocannon from 'autocannon';
import type { BodySource } from './body-source.ts';

export interface RunSummary {
  req_per_s: number;
  requests: number;
  p50_ms: number;
  p90_ms: number;
  p95_ms: number;
  p99_ms: number;
  max_ms: number;
  non_2xx: number;
  errors: number;
  timeouts: number;
}

/** Latency counts in `bin_ms`-wide bins from 0; `overflow` counts the responses at or past the last bin. */
export interface Histogram {
  bin_ms: number;
  counts: number[];
  overflow: number;
}

export interface Measurement {
  summary: RunSummary;
  latency_histogram: Histogram;
  /** Responses completed in each second of the run. */
  per_second: number[];
}

export interface MeasureOptions {
  connections: number;
  seconds: number;
  headers?: Record<string, string>;
  /** Shown in the progress line, e.g. `scans tier=fast`. */
  label: string;
  /** Write the progress line to stderr (updated in place). */
  progress: boolean;
  /** Requests per second over all connections (autocannon `overallRate`); absent: as fast as the service answers. */
  overallRate?: number;
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/** The q-quantile (0..1) of ascending `sorted` (nearest rank). */
function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** Nearest-rank p50 / p95 / p99 and the maximum of `ms`, rounded to 0.1 ms (all 0 when empty). */
export function percentilesMs(ms: readonly number[]) {
  const sorted = Float64Array.from(ms).sort();
  const at = (q: number) => round1(quantile(sorted, q));
  return { n: sorted.length, p50_ms: at(0.5), p95_ms: at(0.95), p99_ms: at(0.99), max_ms: at(1) };
}

/** A 1-2-5 bin width giving about `bins` bins up to `range`. */
function niceWidth(range: number, bins: number): number {
  const raw = Math.max(range, 0.1) / bins;
  const pow = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * pow >= raw) return m * pow;
  return 10 * pow;
}

/** About 40 bins up to the 99.9th percentile, so one slow outlier does not flatten the shape. */
export function histogram(sorted: Float64Array): Histogram {
  const width = niceWidth(quantile(sorted, 0.999), 40);
  const bins = Math.max(1, Math.ceil(quantile(sorted, 0.999) / width) + 1);
  const counts = new Array<number>(bins).fill(0);
  let overflow = 0;
  for (const v of sorted) {
    const i = Math.floor(v / width);
    if (i < bins) counts[i]!++;
    else overflow++;
  }
  return { bin_ms: width, counts, overflow };
}

/**
 * POSTs for `seconds` on `connections` connections and records every response: `requests` as a list
 * (each connection walks it from the start), or a BodySource asked for every request's body (autocannon
 * `setupRequest`: one source shared by all connections, so its bodies are unique across them).
 */
export function measure(url: string, requests: string[] | BodySource, o: MeasureOptions): Promise<Measurement> {
  return new Promise((resolve, reject) => {
    const latencies: number[] = [];
    const perSecond: number[] = [];
    let thisSecond = 0;
    // \r and erase-to-end-of-line: the line is rewritten in place each second.
    const line = (text: string, end = '') => o.progress && process.stderr.write(`\r[${o.label}] ${text}\x1b[K${end}`);
    const instance = autocannon(
      {
        url,
        method: 'POST',
        connections: o.connections,
        duration: o.seconds,
        headers: { 'content-type': 'application/json', ...o.headers },
        requests:
          typeof requests === 'function'
            ? [{ setupRequest: (req: autocannon.Request) => ({ ...req, body: requests() }) }]
            : requests.map((body) => ({ body })),
        ...(o.overallRate ? { overallRate: o.overallRate } : {}),
      },
      (err, result) => {
        if (err) return reject(err);
        const sorted = Float64Array.from(latencies).sort();
        const summary: RunSummary = {
          req_per_s: Math.round(result.requests.average),
          requests: sorted.length,
          p50_ms: round1(quantile(sorted, 0.5)),
          p90_ms: round1(quantile(sorted, 0.9)),
          p95_ms: round1(quantile(sorted, 0.95)),
          p99_ms: round1(quantile(sorted, 0.99)),
          max_ms: round1(sorted.at(-1) ?? 0),
          non_2xx: result.non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
        };
        line(`${o.seconds} s  ${formatSummary(summary)}`, '\n');
        resolve({ summary, latency_histogram: histogram(sorted), per_second: perSecond });
      },
    );
    instance.on('response', (_client, _status, _bytes, responseTime) => {
      latencies.push(responseTime);
      thisSecond++;
    });
    instance.on('tick', () => {
      // autocannon ticks once more when it stops: those last responses belong to the final second.
      const stopping = perSecond.length === o.seconds;
      if (stopping) perSecond[o.seconds - 1]! += thisSecond;
      else perSecond.push(thisSecond);
      thisSecond = 0;
      if (!o.progress || stopping) return;
      // The running p99 over the run so far: a sort of at most a few hundred thousand numbers once a second.
      const p99 = quantile(Float64Array.from(latencies).sort(), 0.99);
      line(`${perSecond.length}/${o.seconds} s  ${perSecond.at(-1)} req/s  p99 ${Math.round(p99)} ms`);
    });
  });
}

/** `812 req/s  p50 20  p90 31  p95 35  p99 41  max 80 ms  non-2xx 0  errors 0` */
export function formatSummary(s: RunSummary): string {
  return `${s.req_per_s} req/s  p50 ${s.p50_ms}  p90 ${s.p90_ms}  p95 ${s.p95_ms}  p99 ${s.p99_ms}  max ${s.max_ms} ms  non-2xx ${s.non_2xx}  errors ${s.errors}${s.timeouts ? `  timeouts ${s.timeouts}` : ''}`;
}

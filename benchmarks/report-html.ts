/**
 * The benchmark report: its JSON shape and a self-contained HTML rendering (inline SVG and CSS, no
 * scripts), so the file can be attached to an issue or opened offline.
 */
import type { CpuPerRequest } from './cpu.ts';
import type { Histogram, Measurement } from './measure.ts';
import type { MachineInfo } from './processes.ts';
import type { ServiceMetrics } from './service-metrics.ts';

export type Scenario = 'standard' | 'mix' | 'document' | 'scaling';

export interface RunRecord extends Measurement {
  /** e.g. `standard: scans tier=fast`, `scaling: scans tier=fast cluster=2`, `document: echo`, `standard: durable-echo`. */
  id: string;
  /** 1-based round of a `--repeat N` run. */
  round: number;
  scenario: Scenario;
  /** `echo`: the bare echo; `durable-echo`: the durable echo (durable-echo.ts); `scans`: the service. */
  target: 'echo' | 'durable-echo' | 'scans';
  tier: string | null;
  /** Processes sharing the port, null for the plain single process. */
  cluster: number | null;
  connections: number;
  body_chars: number;
  surface: string;
  duration_s: number;
  /** CPU per response during the measured run (Linux; null elsewhere). */
  cpu: CpuPerRequest | null;
  /** The service's own counters over the measured run (its /metrics); null for the echoes and for --cluster runs. */
  service_metrics: ServiceMetrics | null;
}

/** `value` = req/s of run `of` divided by req/s of run `to`. */
export interface Ratio {
  name: string;
  of: string;
  to: string;
  value: number;
}

export interface ScalingRow {
  processes: number;
  req_per_s: number;
  /** throughput(n) / (n × throughput(1)) */
  efficiency: number;
  vs_echo: number;
  /** Over the durable echo (durable-echo.ts). */
  vs_durable_echo: number;
}

export interface TargetCheck {
  name: string;
  target: string;
  value: string;
  met: boolean;
}

export interface BenchReport {
  when: string;
  machine: MachineInfo;
  settings: {
    scenarios: Scenario[];
    repeat: number;
    /** unique: every request's text carries its own marker; repeated: `--repeat-texts`, the same few bodies. */
    bodies: 'unique' | 'repeated';
    duration_s: number;
    warmup_s: number;
    database: string;
    command: string;
  };
  runs: RunRecord[];
  ratios: Ratio[];
  scaling: ScalingRow[] | null;
  targets: TargetCheck[];
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const fmt = (n: number) =>
  Number.isInteger(n) ? n.toLocaleString('en-US') : n.toLocaleString('en-US', { maximumFractionDigits: 3 });

const W = 640;
const H = 220;
const M = { top: 16, right: 16, bottom: 36, left: 56 };
const plotW = W - M.left - M.right;
const plotH = H - M.top - M.bottom;

/** Round axis maximum: 1, 2 or 5 × a power of ten, at least `v`. */
function niceMax(v: number): number {
  if (v <= 0) return 1;
  const pow = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 5, 10]) if (m * pow >= v) return m * pow;
  return 10 * pow;
}

function axes(xLabel: string, yLabel: string, yMax: number, xTicks: { at: number; text: string }[]): string {
  const y = (v: number) => M.top + plotH - (v / yMax) * plotH;
  const yTicks = [0, 0.25, 0.5, 0.75, 1].map((f) => f * yMax);
  return [
    `<line x1="${M.left}" y1="${M.top + plotH}" x2="${M.left + plotW}" y2="${M.top + plotH}" class="axis"/>`,
    `<line x1="${M.left}" y1="${M.top}" x2="${M.left}" y2="${M.top + plotH}" class="axis"/>`,
    ...yTicks.map(
      (v) =>
        `<line x1="${M.left}" y1="${y(v)}" x2="${M.left + plotW}" y2="${y(v)}" class="grid"/><text x="${M.left - 6}" y="${y(v) + 4}" text-anchor="end">${fmt(Math.round(v * 100) / 100)}</text>`,
    ),
    ...xTicks.map((t) => `<text x="${t.at}" y="${M.top + plotH + 16}" text-anchor="middle">${esc(t.text)}</text>`),
    `<text x="${M.left + plotW / 2}" y="${H - 4}" text-anchor="middle" class="label">${esc(xLabel)}</text>`,
    `<text x="12" y="${M.top + plotH / 2}" text-anchor="middle" class="label" transform="rotate(-90 12 ${M.top + plotH / 2})">${esc(yLabel)}</text>`,
  ].join('');
}

/** Bars per latency bin (the overflow bin last, hatched), with p50 and p99 marked. */
export function histogramSvg(h: Histogram, p50: number, p99: number): string {
  const bars = [...h.counts, h.overflow];
  const yMax = niceMax(Math.max(...bars));
  const bw = plotW / bars.length;
  const xOf = (ms: number) => M.left + (ms / h.bin_ms) * bw;
  const rects = bars
    .map((c, i) => {
      const hgt = (c / yMax) * plotH;
      const over = i === bars.length - 1;
      const title = over
        ? `≥ ${fmt(h.counts.length * h.bin_ms)} ms: ${c}`
        : `${fmt(i * h.bin_ms)}–${fmt((i + 1) * h.bin_ms)} ms: ${c}`;
      return `<rect x="${M.left + i * bw + 0.5}" y="${M.top + plotH - hgt}" width="${Math.max(bw - 1, 0.5)}" height="${hgt}" class="${over ? 'over' : 'bar'}"><title>${esc(title)}</title></rect>`;
    })
    .join('');
  const step = Math.max(1, Math.ceil(h.counts.length / 8));
  const ticks = h.counts
    .map((_, i) => i)
    .filter((i) => i % step === 0)
    .map((i) => ({ at: M.left + i * bw, text: fmt(Math.round(i * h.bin_ms * 100) / 100) }));
  ticks.push({ at: M.left + (bars.length - 0.5) * bw, text: '≥' });
  const marks = [
    { v: p50, name: 'p50' },
    { v: p99, name: 'p99' },
  ]
    .filter((m) => m.v < h.counts.length * h.bin_ms)
    .map(
      (m) =>
        `<line x1="${xOf(m.v)}" y1="${M.top}" x2="${xOf(m.v)}" y2="${M.top + plotH}" class="mark"/><text x="${xOf(m.v) + 3}" y="${M.top + 10}" class="marktext">${m.name} ${fmt(m.v)}</text>`,
    )
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img">${axes('latency (ms)', 'responses', yMax, ticks)}${rects}${marks}</svg>`;
}

/** Responses completed per second, with the run's mean dashed. */
export function throughputSvg(perSecond: number[]): string {
  const yMax = niceMax(Math.max(1, ...perSecond));
  const n = Math.max(perSecond.length, 1);
  const x = (i: number) => M.left + ((i + 1) / n) * plotW;
  const y = (v: number) => M.top + plotH - (v / yMax) * plotH;
  const pts = perSecond.map((v, i) => `${x(i)},${y(v)}`).join(' ');
  const mean = perSecond.reduce((a, b) => a + b, 0) / n;
  const step = Math.max(1, Math.ceil(n / 10));
  const ticks = perSecond
    .map((_, i) => i)
    .filter((i) => (i + 1) % step === 0)
    .map((i) => ({ at: x(i), text: String(i + 1) }));
  const dots = perSecond
    .map((v, i) => `<circle cx="${x(i)}" cy="${y(v)}" r="2.5" class="dot"><title>${i + 1} s: ${v} req</title></circle>`)
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img">${axes('second', 'requests completed', yMax, ticks)}<line x1="${M.left}" y1="${y(mean)}" x2="${M.left + plotW}" y2="${y(mean)}" class="mean"/><polyline points="${pts}" class="line"/>${dots}</svg>`;
}

/** Measured req/s per process count next to the ideal n × throughput(1). */
export function scalingSvg(rows: ScalingRow[]): string {
  const ideal = rows.map((r) => r.processes * (rows[0]?.req_per_s ?? 0));
  const yMax = niceMax(Math.max(1, ...ideal, ...rows.map((r) => r.req_per_s)));
  const bw = plotW / rows.length;
  const y = (v: number) => M.top + plotH - (v / yMax) * plotH;
  const bars = rows
    .map((r, i) => {
      const x0 = M.left + i * bw;
      return `<rect x="${x0 + bw * 0.2}" y="${y(r.req_per_s)}" width="${bw * 0.6}" height="${M.top + plotH - y(r.req_per_s)}" class="bar"><title>${r.processes}: ${r.req_per_s} req/s, efficiency ${r.efficiency}</title></rect><line x1="${x0 + bw * 0.1}" y1="${y(ideal[i]!)}" x2="${x0 + bw * 0.9}" y2="${y(ideal[i]!)}" class="ideal"/>`;
    })
    .join('');
  const ticks = rows.map((r, i) => ({ at: M.left + (i + 0.5) * bw, text: String(r.processes) }));
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img">${axes('processes (--cluster n); dashes: n × throughput(1)', 'req/s', yMax, ticks)}${bars}</svg>`;
}

function table(head: string[], rows: (string | number)[][]): string {
  const cell = (v: string | number) =>
    `<td${typeof v === 'number' ? ' class="num"' : ''}>${typeof v === 'number' ? fmt(v) : esc(v)}</td>`;
  return `<table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows.map((r) => `<tr>${r.map(cell).join('')}</tr>`).join('')}</tbody></table>`;
}

/** The service's own counters per measured run: the auto cascade's encoder share, operators' models' share and the result cache. */
function serviceMetricsHtml(runs: RunRecord[]): string {
  const measured = runs.filter((run) => run.service_metrics);
  if (measured.length === 0) return '';
  const cascade = measured.flatMap((run) =>
    run.service_metrics!.cascade.map((c) => [run.id, c.detector, c.early, c.full, c.encoder_share]),
  );
  // older reports (before EXTRA_MODELS_DIR) have no `extra`
  const extra = measured.flatMap((run) =>
    (run.service_metrics!.extra ?? []).map((r) => [
      run.id,
      r.model,
      r.tier,
      r.early_low,
      r.early_high,
      r.full,
      r.fallback,
      r.model_share,
    ]),
  );
  const cache = measured.map((run) => {
    const m = run.service_metrics!;
    return [
      run.id,
      m.cache === null ? 'no cache counters' : m.cache.map((c) => `${c.labels}: ${c.count}`).join(', ') || 'no lookups',
      m.cache_hit_share ?? '–',
    ];
  });
  return `<h2>Service counters</h2><p class="meta">Deltas of the service's own Prometheus counters over each measured run. Cascade: auto-tier scans a detector decided with its cheap models (early) or sent on to the sentence encoder (full).</p>${
    cascade.length
      ? table(['run', 'detector', 'early', 'full', 'encoder share'], cascade)
      : '<p>No auto-tier scans.</p>'
  }${
    extra.length
      ? `<p class="meta">Operators' models (EXTRA_MODELS_DIR): the scans each was due on, decided without it (early_low, early_high), run (full) or answered without it (fallback).</p>${table(['run', 'model', 'tier', 'early_low', 'early_high', 'full', 'fallback', 'model share'], extra)}`
      : ''
  }${table(['run', 'result cache lookups', 'hit share'], cache)}`;
}

/** The whole report as one HTML document. */
export function renderHtml(r: BenchReport): string {
  const m = r.machine;
  const summaryRows = r.runs.map((run) => {
    const s = run.summary;
    return [
      run.id,
      run.connections,
      run.body_chars,
      s.req_per_s,
      s.p50_ms,
      s.p90_ms,
      s.p95_ms,
      s.p99_ms,
      s.max_ms,
      s.non_2xx,
      s.errors + s.timeouts,
    ];
  });
  const sections = r.runs
    .map(
      (run, i) => `<section id="run-${i}"><h3>${esc(run.id)}</h3>
<p class="meta">${run.connections} connections, ${run.duration_s} s, ${fmt(run.body_chars)}-character bodies, surface ${esc(run.surface)}${run.tier ? `, tier ${esc(run.tier)}` : ''}${run.cluster ? `, cluster ${run.cluster}` : ''} — ${fmt(run.summary.requests)} responses</p>
<div class="charts"><figure>${histogramSvg(run.latency_histogram, run.summary.p50_ms, run.summary.p99_ms)}<figcaption>Latency histogram (${fmt(run.latency_histogram.bin_ms)} ms bins; last bar: at or beyond the 99.9th percentile)</figcaption></figure>
<figure>${throughputSvg(run.per_second)}<figcaption>Throughput over time (dashes: mean)</figcaption></figure></div></section>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Benchmark ${esc(r.when)}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1340px;padding:0 16px;color:#1d232a}
table{border-collapse:collapse;margin:8px 0 16px}th,td{border:1px solid #d0d7de;padding:4px 8px}th{background:#f3f5f7;text-align:left}td.num{text-align:right;font-variant-numeric:tabular-nums}
.met{color:#1a7f37;font-weight:600}.missed{color:#cf222e;font-weight:600}.meta{color:#57606a;margin:0 0 8px}
.charts{display:flex;flex-wrap:wrap;gap:16px}figure{margin:0}figcaption{color:#57606a;font-size:12px}
svg text{font-size:11px;fill:#57606a}svg .label{font-size:12px;fill:#1d232a}.axis{stroke:#57606a}.grid{stroke:#eaeef2}
.bar{fill:#4c8bf5}.over{fill:#f0a35e}.mark{stroke:#cf222e;stroke-dasharray:4 3}svg .marktext{fill:#cf222e}
.line{fill:none;stroke:#4c8bf5;stroke-width:2}.dot{fill:#4c8bf5}.mean{stroke:#8c959f;stroke-dasharray:5 4}.ideal{stroke:#1d232a;stroke-width:2;stroke-dasharray:6 3}
section{border-top:1px solid #d0d7de;padding-top:8px;margin-top:16px}
</style></head><body>
<h1>Content firewall benchmark</h1>
<p class="meta">${esc(r.when)} — ${m.cpus} × ${esc(m.cpu ?? 'unknown CPU')}, ${m.memory_gib} GiB, ${esc(m.platform)}, Node ${esc(m.node)}, commit ${esc(m.git_commit ?? 'unknown')}${m.git_dirty ? ' (with uncommitted changes)' : ''}; database ${esc(r.settings.database)}; ${r.settings.duration_s} s per run after ${r.settings.warmup_s} s of warm-up; ${r.settings.bodies === 'unique' ? 'every request a text of its own' : 'repeated texts (--repeat-texts)'}${r.settings.repeat > 1 ? `, ${r.settings.repeat} rounds (echo and service interleaved; medians over the rounds beside each round's numbers)` : ''}.<br><code>${esc(r.settings.command)}</code></p>
<h2>Ratios</h2>
<p class="meta">The headline: absolute numbers drift on shared machines, ratios to baselines measured in the same run much less. Two baselines: the bare Express echo (no durable work) and the durable echo (the service's Express stack, body validation and API-key authentication, and one allowed scan's row committed through the group-commit writer: everything a scan request does but detection). A scan run over the durable echo is the share of the possible it reaches; the durable echo over the bare echo is the price of durability.</p>
${table(
  ['ratio', 'value'],
  r.ratios.map((x) => [x.name, x.value]),
)}
${r.targets.length ? `<h2>Targets</h2><table><thead><tr><th>target</th><th>wanted</th><th>measured</th><th></th></tr></thead><tbody>${r.targets.map((t) => `<tr><td>${esc(t.name)}</td><td>${esc(t.target)}</td><td>${esc(t.value)}</td><td class="${t.met ? 'met' : 'missed'}">${t.met ? 'met' : 'not met'}</td></tr>`).join('')}</tbody></table>` : ''}
${
  r.scaling
    ? `<h2>Scaling</h2>${table(
        ['processes', 'req/s', 'efficiency', 'vs echo', 'vs durable echo'],
        r.scaling.map((s) => [s.processes, s.req_per_s, s.efficiency, s.vs_echo, s.vs_durable_echo]),
      )}<figure>${scalingSvg(r.scaling)}<figcaption>Throughput per process count</figcaption></figure>`
    : ''
}
<h2>Summary</h2>
${table(['run', 'connections', 'body chars', 'req/s', 'p50 ms', 'p90 ms', 'p95 ms', 'p99 ms', 'max ms', 'non-2xx', 'errors'], summaryRows)}
${
  r.runs.some((run) => run.cpu)
    ? `<h2>CPU per request</h2><p class="meta">Milliseconds of CPU per response during each measured run, from /proc: the target's main thread(s), its other threads (model workers, V8 compiler and GC helpers), every PostgreSQL process, the load generator (this process), and the whole machine.</p>${table(
        ['run', 'main ms', 'other threads ms', 'postgres ms', 'load generator ms', 'machine ms', 'machine busy'],
        r.runs
          .filter((run) => run.cpu)
          .map((run) => [
            run.id,
            run.cpu!.service_main_ms,
            run.cpu!.service_threads_ms,
            run.cpu!.postgres_ms,
            run.cpu!.load_generator_ms,
            run.cpu!.machine_ms,
            `${Math.round(run.cpu!.machine_busy * 100)}% of ${run.cpu!.cores} cores`,
          ]),
      )}`
    : ''
}
${serviceMetricsHtml(r.runs)}
<h2>Runs</h2>
${sections}
<script type="application/json" id="report-data">${JSON.stringify(r).replace(/</g, '\\u003c')}</script>
</body></html>
`;
}

/**
 * Scan latency percentiles over time in hand-written SVG: a line each for p50, p95 and p99 across
 * the window (placed by time: the API leaves out buckets without scans), each point titled with its
 * bucket, percentile and value; the numbers also as a table under "Show data".
 */
import type { Latency } from './analytics-data.ts';
import {
  anchorAt,
  axisLabel,
  bucketLabel,
  count,
  latencyText,
  Legend,
  niceMax,
  ShowData,
  spread,
  ticks,
} from './chart-kit.tsx';

const WIDTH = 800;
const HEIGHT = 220;
const LEFT = 64;
const RIGHT = 12;
const TOP = 10;
const BOTTOM = 30;
const PLOT_W = WIDTH - LEFT - RIGHT;
const PLOT_H = HEIGHT - TOP - BOTTOM;

type Point = Latency['points'][number];
const PERCENTILES = [
  { key: 'p50_ms', name: 'p50' },
  { key: 'p95_ms', name: 'p95' },
  { key: 'p99_ms', name: 'p99' },
] as const;

/** The chart's summary for a screen reader: the worst p50, p95 and p99 of the window. */
function describe(latency: Latency): string {
  const worst = PERCENTILES.map(({ key, name }) => {
    const values = latency.points.map((p) => p[key]).filter((v): v is number => v !== null);
    return `${name} up to ${latencyText(values.length ? Math.max(...values) : null)}`;
  });
  return `Scan latency over ${latency.points.length} ${latency.bucket} buckets with scans: ${worst.join(', ')}.`;
}

/** The percentiles of `latency` as lines over its window, with the legend and the table. */
export function LatencyChart({ latency }: { latency: Latency }) {
  const { points, bucket, window } = latency;
  const since = Date.parse(window.since);
  const spanMs = Date.parse(window.until) - since;
  const binMs = { '15m': 900_000, '1h': 3_600_000, '1d': 86_400_000 }[bucket];
  const top = niceMax(Math.max(0, ...points.map((p) => p.p99_ms ?? 0)));
  // A point sits at the middle of its bucket.
  const x = (t: string) => LEFT + ((Date.parse(t) - since + binMs / 2) / spanMs) * PLOT_W;
  const y = (v: number) => TOP + PLOT_H - (v / top) * PLOT_H;
  return (
    <figure className="chart">
      <svg
        className="latency-chart"
        role="img"
        aria-label={describe(latency)}
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        width="100%"
        preserveAspectRatio="xMinYMin meet"
      >
        {ticks(top, false).map((v) => (
          <g key={v} className="grid">
            <line x1={LEFT} x2={WIDTH - RIGHT} y1={y(v)} y2={y(v)} />
            <text x={LEFT - 6} y={y(v)} textAnchor="end" dominantBaseline="central">
              {latencyText(v)}
            </text>
          </g>
        ))}
        {PERCENTILES.map(({ key, name }) => {
          const shown = points.filter((p) => p[key] !== null);
          return (
            <g key={key} className={`series-${name}`}>
              <polyline points={shown.map((p) => `${x(p.t)},${y(p[key]!)}`).join(' ')} />
              {shown.map((p) => (
                <circle key={p.t} cx={x(p.t)} cy={y(p[key]!)} r={3.5}>
                  <title>{`${bucketLabel(p.t, bucket)}: ${name} ${latencyText(p[key])} (${count(p.count)} scans)`}</title>
                </circle>
              ))}
            </g>
          );
        })}
        {spread(points.length, 5).map((i) => (
          <text
            key={points[i]!.t}
            className="axis"
            x={x(points[i]!.t)}
            y={HEIGHT - 10}
            textAnchor={anchorAt(x(points[i]!.t), LEFT, WIDTH - RIGHT)}
          >
            {axisLabel(points[i]!.t, bucket, spanMs)}
          </text>
        ))}
      </svg>
      <Legend items={PERCENTILES.map(({ name }) => ({ name, className: `series-${name}` }))} />
      <ShowData
        caption={`Scan latency per ${bucket} bucket`}
        rows={points}
        rowKey={(p: Point) => p.t}
        columns={[
          { header: 'Bucket start', cell: (p) => bucketLabel(p.t, bucket) },
          { header: 'Scans', cell: (p) => count(p.count), numeric: true },
          ...PERCENTILES.map(({ key, name }) => ({
            header: name,
            cell: (p: Point) => latencyText(p[key]),
            numeric: true,
          })),
        ]}
      />
    </figure>
  );
}

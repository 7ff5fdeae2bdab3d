/**
 * Scans per bucket as stacked columns in hand-written SVG: one column per bucket of the window
 * (empty buckets included, as the API answers them), stacked by effective action, each segment
 * titled with its bucket, action and count; the numbers also as a table under "Show data".
 */
import { ACTIONS_ASCENDING as ACTIONS, type TimeSeries } from './analytics-data.ts';
import { anchorAt, axisLabel, bucketLabel, count, Legend, niceMax, ShowData, spread, ticks } from './chart-kit.tsx';

const WIDTH = 800;
const HEIGHT = 240;
const LEFT = 48;
const RIGHT = 8;
const TOP = 10;
const BOTTOM = 30;
const PLOT_W = WIDTH - LEFT - RIGHT;
const PLOT_H = HEIGHT - TOP - BOTTOM;

type Point = TimeSeries['points'][number];
const totalOf = (p: Point): number => ACTIONS.reduce((sum, a) => sum + p[a], 0);

/** The chart's summary for a screen reader: the buckets, the total, and the busiest bucket. */
function describe(series: TimeSeries): string {
  const { points, bucket } = series;
  const total = points.reduce((sum, p) => sum + totalOf(p), 0);
  const peak = points.reduce<Point | undefined>(
    (best, p) => (!best || totalOf(p) > totalOf(best) ? p : best),
    undefined,
  );
  const span = points.length
    ? ` from ${bucketLabel(points[0]!.t, bucket)} to ${bucketLabel(points.at(-1)!.t, bucket)}`
    : '';
  const busiest =
    peak && totalOf(peak) > 0 ? `; the most, ${count(totalOf(peak))}, at ${bucketLabel(peak.t, bucket)}` : '';
  return `Scans per ${bucket} bucket, ${points.length} buckets${span}: ${count(total)} in all${busiest}.`;
}

/** The time series of `series` as stacked columns, with its legend and its table. */
export function TimeSeriesChart({ series }: { series: TimeSeries }) {
  const { points, bucket, window } = series;
  const top = niceMax(Math.max(0, ...points.map(totalOf)));
  const y = (v: number) => TOP + PLOT_H - (v / top) * PLOT_H;
  const step = PLOT_W / Math.max(1, points.length);
  const barWidth = Math.max(1, step * 0.8);
  const spanMs = Date.parse(window.until) - Date.parse(window.since);
  return (
    <figure className="chart">
      <svg
        className="timeseries-chart"
        role="img"
        aria-label={describe(series)}
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        width="100%"
        preserveAspectRatio="xMinYMin meet"
      >
        {ticks(top, true).map((v) => (
          <g key={v} className="grid">
            <line x1={LEFT} x2={WIDTH - RIGHT} y1={y(v)} y2={y(v)} />
            <text x={LEFT - 6} y={y(v)} textAnchor="end" dominantBaseline="central">
              {count(v)}
            </text>
          </g>
        ))}
        {points.map((p, i) => {
          const x = LEFT + i * step + (step - barWidth) / 2;
          let base = 0;
          return (
            <g key={p.t} className="column">
              {ACTIONS.map((action) => {
                const n = p[action];
                if (n === 0) return null;
                const from = base;
                base += n;
                return (
                  <rect
                    key={action}
                    x={x}
                    y={y(base)}
                    width={barWidth}
                    height={y(from) - y(base)}
                    className={`fill-${action}`}
                  >
                    <title>{`${bucketLabel(p.t, bucket)}: ${count(n)} ${action}`}</title>
                  </rect>
                );
              })}
            </g>
          );
        })}
        {spread(points.length, 5).map((i) => {
          const x = LEFT + i * step + step / 2;
          return (
            <text
              key={points[i]!.t}
              className="axis"
              x={x}
              y={HEIGHT - 10}
              textAnchor={anchorAt(x, LEFT, WIDTH - RIGHT)}
            >
              {axisLabel(points[i]!.t, bucket, spanMs)}
            </text>
          );
        })}
      </svg>
      <Legend items={ACTIONS.map((a) => ({ name: a, className: `fill-${a}` }))} />
      <ShowData
        caption={`Scans per ${bucket} bucket, by action`}
        rows={points}
        rowKey={(p) => p.t}
        columns={[
          { header: 'Bucket start', cell: (p) => bucketLabel(p.t, bucket) },
          ...ACTIONS.map((a) => ({ header: a, cell: (p: Point) => count(p[a]), numeric: true })),
          { header: 'total', cell: (p) => count(totalOf(p)), numeric: true },
        ]}
      />
    </figure>
  );
}

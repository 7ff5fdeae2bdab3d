/**
 * What the hand-written SVG charts share: a readable scale, time labels, the legend, and the "Show
 * data" table that offers every chart's numbers to the keyboard and to screen readers (a chart is one
 * `role="img"` with a summary; its table holds the detail).
 */
import type { ReactNode } from 'react';
import type { Bucket } from './analytics-data.ts';

/** The top of a scale that holds `max`: 1, 2 or 5 times a power of ten (1 when there is nothing). */
export function niceMax(max: number): number {
  if (!(max > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  return [1, 2, 5, 10].map((m) => m * power).find((top) => top >= max) ?? 10 * power;
}

/**
 * The gridline values from 0 to `top`, 2 to 6 of them; whole numbers only when `whole` (a count has
 * no half scan).
 */
export function ticks(top: number, whole: boolean): number[] {
  const parts = [4, 5, 2, 1].find((d) => !whole || Number.isInteger(top / d)) ?? 1;
  return Array.from({ length: parts + 1 }, (_, i) => (top / parts) * i);
}

/** A bucket's start as this browser shows it: the day for `1d`, else the day and the time. */
export function bucketLabel(iso: string, bucket: Bucket): string {
  const date = new Date(iso);
  return bucket === '1d'
    ? date.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })
    : date.toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

/** An axis label: shorter than bucketLabel (the time alone when the chart spans a day or less). */
export function axisLabel(iso: string, bucket: Bucket, spanMs: number): string {
  if (bucket !== '1d' && spanMs <= 86_400_000)
    return new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  return bucketLabel(iso, bucket);
}

/** A latency: three significant figures below 10 ms (most scans take well under one), whole above. */
export function latencyText(ms: number | null): string {
  if (ms === null) return '—';
  return ms < 10 ? `${Number(ms.toPrecision(3))} ms` : `${Math.round(ms)} ms`;
}

/** A count with this browser's digit grouping. */
export const count = (n: number): string => n.toLocaleString();

/** At most `n` evenly spread indices of a list of `length` (the first and the last included). */
export function spread(length: number, n: number): number[] {
  if (length <= n) return Array.from({ length }, (_, i) => i);
  return Array.from({ length: n }, (_, i) => Math.round((i * (length - 1)) / (n - 1)));
}

/** How an axis label at `x` is anchored: near an end of the axis (`from`..`to`), inward, so it is not cut off. */
export const anchorAt = (x: number, from: number, to: number): 'start' | 'middle' | 'end' =>
  x - from < 60 ? 'start' : to - x < 60 ? 'end' : 'middle';

/** The key of a chart's series: a swatch (coloured by `className`) and a name for each. */
export function Legend({ items }: { items: readonly { name: string; className: string }[] }) {
  return (
    <ul className="chart-legend" aria-hidden="true">
      {items.map((item) => (
        <li key={item.name}>
          <span className={`swatch ${item.className}`} />
          {item.name}
        </li>
      ))}
    </ul>
  );
}

/** A column of a chart's data table. */
export interface Column<R> {
  header: string;
  cell: (row: R) => ReactNode;
  /** Right-aligned (a number). */
  numeric?: boolean;
}

/** A chart's numbers as a table, folded under "Show data". */
export function ShowData<R>({
  caption,
  columns,
  rows,
  rowKey,
}: {
  caption: string;
  columns: readonly Column<R>[];
  rows: readonly R[];
  rowKey: (row: R) => string;
}) {
  return (
    <details className="chart-data">
      <summary>Show data</summary>
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.header} scope="col" className={c.numeric ? 'num' : undefined}>
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((c) => (
                <td key={c.header} className={c.numeric ? 'num' : undefined}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}

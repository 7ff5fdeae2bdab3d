/**
 * A horizontal bar chart in hand-written SVG: one labelled bar per item, longest first as given,
 * each bar titled with its exact value; its numbers also as a table under "Show data".
 */
import { count, niceMax, ShowData } from './chart-kit.tsx';

/** A bar: its label, its value, and (optionally) a note shown in the table (a detector's category). */
export interface BarItem {
  label: string;
  value: number;
  note?: string | null;
}

// Drawn at about its size in a half-width column: the labels stay readable.
const WIDTH = 480;
const LABEL = 165;
const ROW = 28;
const BAR = 18;
/** Room after the longest bar for its value. */
const VALUE = 50;

/**
 * The bars of `items` on one scale from 0; `name` names the chart (its summary, the table's caption),
 * `unit` what a value counts (`scans`), `noteHeader` the table column of the items' notes.
 */
export function BarChart({
  name,
  items,
  unit,
  noteHeader,
}: {
  name: string;
  items: readonly BarItem[];
  unit: string;
  noteHeader?: string;
}) {
  const top = niceMax(Math.max(0, ...items.map((i) => i.value)));
  const scale = (WIDTH - LABEL - VALUE) / top;
  const height = items.length * ROW + 8;
  const summary = `${name}: ${items.map((i) => `${i.label} ${count(i.value)}`).join(', ')} ${unit}.`;
  return (
    <figure className="chart">
      <svg
        className="bar-chart"
        role="img"
        aria-label={summary}
        viewBox={`0 0 ${WIDTH} ${height}`}
        width="100%"
        preserveAspectRatio="xMinYMin meet"
      >
        {items.map((item, i) => {
          const y = 4 + i * ROW;
          const length = Math.max(item.value > 0 ? 2 : 0, item.value * scale);
          return (
            <g key={item.label} className="bar">
              <text x={LABEL - 10} y={y + BAR / 2} textAnchor="end" dominantBaseline="central" className="bar-label">
                {item.label}
              </text>
              <rect x={LABEL} y={y} width={length} height={BAR} rx={3} className="bar-fill">
                <title>{`${item.label}: ${count(item.value)} ${unit}`}</title>
              </rect>
              <text x={LABEL + length + 6} y={y + BAR / 2} dominantBaseline="central" className="bar-value">
                {count(item.value)}
              </text>
            </g>
          );
        })}
      </svg>
      <ShowData
        caption={name}
        rows={items}
        rowKey={(i) => i.label}
        columns={[
          { header: 'Name', cell: (i) => i.label },
          ...(noteHeader ? [{ header: noteHeader, cell: (i: BarItem) => i.note ?? '—' }] : []),
          { header: unit[0]!.toUpperCase() + unit.slice(1), cell: (i) => count(i.value), numeric: true },
        ]}
      />
    </figure>
  );
}

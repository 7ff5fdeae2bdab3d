import { useId, useState, type FormEvent } from 'react';
import type { Session } from './api.ts';
import {
  ACTIONS_ASCENDING,
  autoBucket,
  BUCKETS,
  queryOf,
  RANGES,
  useAnalytics,
  type Analytics as Answers,
  type Bucket,
  type Query,
  type Range,
  type Summary,
} from './analytics-data.ts';
import { BarChart } from './chart-bars.tsx';
import { count } from './chart-kit.tsx';
import { LatencyChart } from './chart-latency.tsx';
import { TimeSeriesChart } from './chart-timeseries.tsx';
import { localInput, percent, when } from './format.ts';
import { ProblemView } from './problem-view.tsx';
import './analytics.css';

/**
 * The Analytics page: a window (the last 24 hours, 7 or 30 days, or a chosen range) and its bucket,
 * then the organization's scans over it from the `GET /v1/analytics/*` views (scope
 * `analytics:read`): totals by action with their change against the window before, scans over time
 * by action, per surface, the top detectors, and latency percentiles over time. Every chart is SVG
 * drawn here, summarized for screen readers, with its numbers in a "Show data" table.
 */
export function Analytics({ client }: Session) {
  const ids = useId();
  const [range, setRange] = useState<Range>('24h');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [bucket, setBucket] = useState<Bucket | 'auto'>('auto');
  const [query, setQuery] = useState<Query | null>(() => queryOf('24h', '', '', 'auto'));
  const { data, error, loading } = useAnalytics(client, query);

  const chooseRange = (next: Range) => {
    setRange(next);
    if (next !== 'custom') return setQuery(queryOf(next, '', '', bucket));
    // A custom range starts as the window shown, for the person to adjust.
    if (query) {
      setFrom(localInput(query.since));
      setTo(localInput(query.until));
    }
  };
  const chooseBucket = (next: Bucket | 'auto') => {
    setBucket(next);
    setQuery(queryOf(range, from, to, next) ?? query);
  };
  const apply = (event: FormEvent) => {
    event.preventDefault();
    setQuery(queryOf(range, from, to, bucket));
  };
  const spanMs = query ? Date.parse(query.until) - Date.parse(query.since) : 0;

  return (
    <section aria-labelledby={`${ids}-title`} aria-busy={loading} className="analytics">
      <h2 id={`${ids}-title`}>Analytics</h2>
      <form className="row analytics-window" onSubmit={apply}>
        <label>
          Window
          <select value={range} onChange={(e) => chooseRange(e.target.value as Range)}>
            {Object.entries(RANGES).map(([key, { label }]) => (
              <option key={key} value={key}>
                {label}
              </option>
            ))}
          </select>
        </label>
        {range === 'custom' && (
          <>
            <label>
              From
              <input type="datetime-local" value={from} onChange={(e) => setFrom(e.target.value)} required />
            </label>
            <label>
              To
              <input type="datetime-local" value={to} onChange={(e) => setTo(e.target.value)} required />
            </label>
          </>
        )}
        <label>
          Bucket
          <select value={bucket} onChange={(e) => chooseBucket(e.target.value as Bucket | 'auto')}>
            <option value="auto">auto ({autoBucket(spanMs)})</option>
            {BUCKETS.map((b) => (
              <option key={b} value={b}>
                {b}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={loading || (range === 'custom' && (!from || !to))}>
          {range === 'custom' ? 'Apply' : 'Refresh'}
        </button>
      </form>
      {error !== null && <ProblemView error={error} />}
      {loading && !data && <p className="hint">Loading…</p>}
      {data && <Report data={data} />}
    </section>
  );
}

/** The answers for one window: the window covered, then the tiles and charts, or the empty state. */
function Report({ data }: { data: Answers }) {
  const { summary, timeseries, surfaces, detectors, latency } = data;
  return (
    <div>
      <p className="hint" data-testid="window" aria-live="polite">
        {when(summary.window.since)} – {when(summary.window.until)}. Scans are rolled up every 30 seconds: a new scan
        shows here within about a minute.
      </p>
      {summary.total === 0 ? (
        <p className="empty" data-testid="analytics-empty">
          No scans in this window. Scans sent to the API (or from the Playground) appear here.
        </p>
      ) : (
        <>
          <Tiles summary={summary} />
          <h3>Scans over time</h3>
          <TimeSeriesChart series={timeseries} />
          <div className="chart-pair">
            <div>
              <h3>Surfaces</h3>
              <BarChart
                name="Scans per surface"
                unit="scans"
                items={surfaces.items.map((i) => ({ label: i.surface, value: i.count }))}
              />
            </div>
            <div>
              <h3>Top detectors</h3>
              {detectors.items.length === 0 ? (
                <p className="empty">No detector found anything in this window.</p>
              ) : (
                <BarChart
                  name="Scans in which each detector found something"
                  unit="scans"
                  noteHeader="Category"
                  items={detectors.items.map((i) => ({ label: i.detector, value: i.count, note: i.category }))}
                />
              )}
            </div>
          </div>
          <h3>Latency</h3>
          <p className="hint">The time the service spent on each scan: p50, p95 and p99 per bucket.</p>
          <LatencyChart latency={latency} />
        </>
      )}
    </div>
  );
}

/** A change against the previous window, or what its absence means. */
const change = (pct: number | null, none: string): string =>
  pct === null ? none : `${pct > 0 ? '+' : ''}${pct}% vs the previous window`;

/** The totals: all scans and each action, with its share, and the changes the API reports. */
function Tiles({ summary }: { summary: Summary }) {
  const delta = summary.prior_period_delta;
  return (
    <dl className="tiles">
      <div className="tile" data-testid="tile-total">
        <dt>Scans</dt>
        <dd className="tile-value">{count(summary.total)}</dd>
        <dd className="tile-note">{change(delta.total_pct, 'none in the previous window')}</dd>
      </div>
      {ACTIONS_ASCENDING.map((action) => (
        <div key={action} className={`tile tile-${action}`} data-testid={`tile-${action}`}>
          <dt>{action[0]!.toUpperCase() + action.slice(1)}</dt>
          <dd className="tile-value">{count(summary[action])}</dd>
          <dd className="tile-note">
            {percent(summary[action] / summary.total)} of scans
            {action === 'blocked' && `; ${change(delta.blocked_pct, 'none blocked in the previous window')}`}
          </dd>
        </div>
      ))}
    </dl>
  );
}

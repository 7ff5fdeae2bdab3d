/**
 * What the Analytics page asks the API: the window (a preset or a chosen range) and the bucket of
 * its time series, turned into the query of the five `GET /v1/analytics/*` views, and the hook that
 * loads them together.
 */
import { useEffect, useRef, useState } from 'react';
import { ACTIONS, type Action, type Client, type components, type operations } from './api.ts';

/** Totals by action over the window and their change against the window before. */
export type Summary = components['schemas']['AnalyticsSummary'];
/** Scans by action per bucket, every bucket of the window. */
export type TimeSeries = components['schemas']['AnalyticsTimeSeries'];
/** Scans per surface. */
export type Surfaces = components['schemas']['AnalyticsSurfaces'];
/** The detectors that found something in the most scans. */
export type Detectors = components['schemas']['AnalyticsDetectors'];
/** Latency percentiles per bucket with scans. */
export type Latency = components['schemas']['AnalyticsLatency'];
/** A time-series bucket width the API takes. */
export type Bucket = operations['getAnalyticsTimeseries']['parameters']['query']['bucket'];
/** The actions in the order the page shows them (the least to the most severe). */
export const ACTIONS_ASCENDING: readonly Action[] = [...ACTIONS].reverse();
/** The bucket widths, narrowest first. */
export const BUCKETS: readonly Bucket[] = ['15m', '1h', '1d'];

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The windows offered in one click, ending now; `custom` is a range picked with two dates. */
export const RANGES = {
  '24h': { label: 'Last 24 hours', ms: DAY },
  '7d': { label: 'Last 7 days', ms: 7 * DAY },
  '30d': { label: 'Last 30 days', ms: 30 * DAY },
  custom: { label: 'Custom range', ms: 0 },
} as const;
/** A window choice. */
export type Range = keyof typeof RANGES;

/** What the five views are asked: the window and the time series' and latency's bucket. */
export interface Query {
  since: string;
  until: string;
  bucket: Bucket;
}

/**
 * The bucket that gives a readable chart for a window of `spanMs`: quarter hours up to 6 hours, hours
 * up to 8 days (168 bars), days beyond (the API's caps: 7, 92 and 400 days).
 */
export const autoBucket = (spanMs: number): Bucket => (spanMs <= 6 * HOUR ? '15m' : spanMs <= 8 * DAY ? '1h' : '1d');

/**
 * The query for a choice: a preset ends now; a custom range reads the two `datetime-local` values
 * (this browser's time zone). Null when a custom date is missing or not a date. An inverted or too
 * wide range is sent as is: the API's problem says what is wrong.
 */
export function queryOf(
  range: Range,
  from: string,
  to: string,
  bucket: Bucket | 'auto',
  now = Date.now(),
): Query | null {
  const [since, until] = range === 'custom' ? [Date.parse(from), Date.parse(to)] : [now - RANGES[range].ms, now];
  if (Number.isNaN(since) || Number.isNaN(until)) return null;
  return {
    since: new Date(since).toISOString(),
    until: new Date(until).toISOString(),
    bucket: bucket === 'auto' ? autoBucket(until - since) : bucket,
  };
}

/** The five answers for one query. */
export interface Analytics {
  summary: Summary;
  timeseries: TimeSeries;
  surfaces: Surfaces;
  detectors: Detectors;
  latency: Latency;
}

/** The answers for the current query, the last failure, and whether a request is under way. */
export interface Loaded {
  data: Analytics | null;
  error: unknown;
  loading: boolean;
}

/**
 * Loads the five views for `query` (again whenever it changes: a new object reloads), in parallel. An
 * answer to an older query is dropped, so the page always shows the latest window; a failure of any
 * view shows its problem rather than half a page.
 */
export function useAnalytics(client: Client, query: Query | null): Loaded {
  const [state, setState] = useState<Loaded>({ data: null, error: null, loading: false });
  const generation = useRef(0);
  useEffect(() => {
    if (!query) return;
    const mine = ++generation.current;
    setState((s) => ({ ...s, error: null, loading: true }));
    const window = { since: query.since, until: query.until };
    Promise.all([
      client.analytics.summary(window),
      client.analytics.timeseries({ ...window, bucket: query.bucket }),
      client.analytics.surfaces(window),
      client.analytics.detectors({ ...window, limit: 10 }),
      client.analytics.latency({ ...window, bucket: query.bucket }),
    ]).then(
      ([summary, timeseries, surfaces, detectors, latency]) => {
        if (mine === generation.current)
          setState({ data: { summary, timeseries, surfaces, detectors, latency }, error: null, loading: false });
      },
      (error: unknown) => {
        if (mine === generation.current) setState({ data: null, error, loading: false });
      },
    );
  }, [client, query]);
  return state;
}

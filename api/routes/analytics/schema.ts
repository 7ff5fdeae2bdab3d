import { z } from 'zod';
import { SURFACES, type DetectorCategory } from '../../../engine/detector.ts';
import { FRAMEWORKS } from '../../../engine/frameworks.ts';
import { ANALYTICS_BUCKET_NAMES } from '../../../services/analytics.ts';
import { instant, windowInOrder } from '../../fields.ts';
import { instant as isoInstant, resource } from '../../resources.ts';

// The latest instant a window may reach: its end, widened to a day, must still be a four-digit year.
const LAST = new Date('9999-01-01T00:00:00Z');
const bounded = instant.refine((d) => d <= LAST, 'must be before 9999-01-01T00:00:00Z');

/** Every analytics query: `since` (inclusive) and `until` (exclusive), both required, in order. */
const window = z.strictObject({ since: bounded, until: bounded });
const inOrder = { path: ['until'], message: 'must be after since' };

export const windowQuery = window.refine(windowInOrder, inOrder);

export const bucketedQuery = window.extend({ bucket: z.enum(ANALYTICS_BUCKET_NAMES) }).refine(windowInOrder, inOrder);

/** Top detectors: `limit` 1–50, default 10. */
export const topDetectorsQuery = window
  .extend({ limit: z.coerce.number().int().min(1).max(50).default(10) })
  .refine(windowInOrder, inOrder);

// Responses.

const count = z.number().int().min(0);
const percent = z.number().nullable().describe('Percent change, one decimal; null when the prior window counted 0.');
const milliseconds = z.number().min(0).nullable().describe('Milliseconds, 3 decimals, within 1 % (DDSketch).');
const bucket = z.enum(ANALYTICS_BUCKET_NAMES);

/** The detector categories: the keys of the framework table, which names every one. */
const CATEGORIES = Object.keys(FRAMEWORKS) as [DetectorCategory, ...DetectorCategory[]];

/** The window an answer covers: the requested one widened outward to its grid. */
export const AnalyticsWindow = resource(
  'AnalyticsWindow',
  z.object({ since: isoInstant.describe('Inclusive.'), until: isoInstant.describe('Exclusive.') }),
  'The window an answer covers: the requested one, `since` floored and `until` ceiled to the grid.',
);

/** `GET /v1/analytics/summary`. */
export const AnalyticsSummary = resource(
  'AnalyticsSummary',
  z.object({
    window: AnalyticsWindow,
    total: count,
    allowed: count,
    flagged: count,
    warned: count,
    blocked: count,
    prior_period_delta: z
      .object({ total_pct: percent, blocked_pct: percent })
      .describe('The change against the window of equal length just before `window`.'),
  }),
  'Scans by effective action over the window.',
);

/** `GET /v1/analytics/timeseries`. */
export const AnalyticsTimeSeries = resource(
  'AnalyticsTimeSeries',
  z.object({
    window: AnalyticsWindow,
    bucket,
    points: z
      .array(
        z.object({
          t: isoInstant.describe('The bin’s start.'),
          allowed: count,
          flagged: count,
          warned: count,
          blocked: count,
        }),
      )
      .describe('Every bin of the window, zeros included, oldest first.'),
  }),
  'Scans by effective action per bin.',
);

/** `GET /v1/analytics/surfaces`. */
export const AnalyticsSurfaces = resource(
  'AnalyticsSurfaces',
  z.object({
    window: AnalyticsWindow,
    items: z
      .array(z.object({ surface: z.enum(SURFACES), count }))
      .describe('By count descending, then surface; surfaces without scans left out.'),
  }),
  'Scans per surface over the window.',
);

/** `GET /v1/analytics/detectors`. */
export const AnalyticsDetectors = resource(
  'AnalyticsDetectors',
  z.object({
    window: AnalyticsWindow,
    items: z
      .array(
        z.object({
          detector: z.string(),
          category: z.enum(CATEGORIES).nullable().describe('Null for a detector this deployment no longer has.'),
          count: count.describe('Scans in which the detector found something.'),
        }),
      )
      .describe('By count descending, then detector.'),
  }),
  'The detectors that found something in the most scans over the window.',
);

/** `GET /v1/analytics/latency`. */
export const AnalyticsLatency = resource(
  'AnalyticsLatency',
  z.object({
    window: AnalyticsWindow,
    bucket,
    points: z
      .array(
        z.object({
          t: isoInstant.describe('The bin’s start.'),
          p50_ms: milliseconds,
          p95_ms: milliseconds,
          p99_ms: milliseconds,
          count: count.describe('The scans behind the point.'),
        }),
      )
      .describe('Bins with scans only, oldest first.'),
  }),
  'Scan latency percentiles per bin.',
);

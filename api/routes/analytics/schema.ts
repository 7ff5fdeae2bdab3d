import { z } from 'zod';
import { ANALYTICS_BUCKET_NAMES } from '../../../services/analytics.ts';
import { instant, windowInOrder } from '../../fields.ts';

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

import { z } from 'zod';
import type { CreateAnalysisInput } from '../../../services/legacy-analyses.ts';
import { pageQuery } from '../../pagination.ts';
import { instant, pageOf, resource } from '../../resources.ts';

/** The bounds of docs/api.md (Legacy analysis sessions). */
export const LEGACY_ANALYSIS_LIMITS = { name: 255, description: 1000 } as const;

/** The largest analysis id (a PostgreSQL integer). */
export const MAX_ANALYSIS_ID = 2_147_483_647;

const L = LEGACY_ANALYSIS_LIMITS;

export const createAnalysisBody = z.strictObject({
  name: z.string().min(1, `must be 1 to ${L.name} characters`).max(L.name, `must be 1 to ${L.name} characters`),
  description: z.string().max(L.description, `must be at most ${L.description} characters`).nullable().optional(),
}) satisfies z.ZodType<CreateAnalysisInput>;

/** An analysis id as a path carries it: a positive integer in decimal, no sign, no leading zero. */
export const analysisIdParams = z.object({
  analysis_id: z
    .string()
    .regex(/^[1-9][0-9]{0,9}$/, `must be an integer from 1 to ${MAX_ANALYSIS_ID}`)
    .transform(Number)
    .refine((n) => n <= MAX_ANALYSIS_ID, `must be an integer from 1 to ${MAX_ANALYSIS_ID}`),
});

export const listAnalysesQuery = pageQuery;

/** The list's keyset position: the last analysis id of the page (ids decrease down the list). */
export const analysisCursor = z.object({ before: z.number().int().min(1).max(MAX_ANALYSIS_ID) });

// Responses.

/** An analysis session (docs/api.md, Legacy analysis sessions). */
export const LegacyAnalysis = resource(
  'LegacyAnalysis',
  z.object({
    analysis_id: z
      .number()
      .int()
      .min(1)
      .max(MAX_ANALYSIS_ID)
      .describe('Numbered 1, 2, 3 … per organization in creation order; never reused.'),
    name: z.string(),
    description: z.string().nullable(),
    created_at: instant,
  }),
  'An analysis session of the legacy API: what `POST /v1/analysis/{analysis_id}` names.',
);

/** A page of analysis sessions, newest first. */
export const LegacyAnalysisPage = pageOf('LegacyAnalysisPage', LegacyAnalysis);

/** `GET /v1/legacy-usage`: the calendar month's legacy requests against the limit in force. */
export const LegacyUsage = resource(
  'LegacyUsage',
  z.object({
    month: z
      .string()
      .regex(/^[0-9]{4}-[0-9]{2}$/)
      .describe('The calendar month (UTC), `YYYY-MM`.'),
    limit: z.number().int().min(0).describe('The monthly limit in force.'),
    used: z.number().int().min(0).describe('Legacy requests counted this month.'),
    resets_at: instant.describe('The next month’s first instant (UTC): the count starts again.'),
  }),
  'The organization’s legacy API usage this month.',
);

import type { z } from 'zod';
import type { LegacyAnalysisRow } from '../../../services/legacy-analyses.ts';
import type { LegacyAnalysis, LegacyUsage } from './schema.ts';

/** An analysis session (never `created_by`). */
export function presentAnalysis(a: LegacyAnalysisRow): z.output<typeof LegacyAnalysis> {
  return {
    analysis_id: a.analysis_id,
    name: a.name,
    description: a.description,
    created_at: a.created_at.toISOString(),
  };
}

/** The month's legacy usage (`GET /v1/legacy-usage`). */
export function presentUsage(u: {
  month: string;
  limit: number;
  used: number;
  resetsAt: Date;
}): z.output<typeof LegacyUsage> {
  return { month: u.month, limit: u.limit, used: u.used, resets_at: u.resetsAt.toISOString() };
}

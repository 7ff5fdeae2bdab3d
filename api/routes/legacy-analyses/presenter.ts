import type { LegacyAnalysisRow } from '../../../services/legacy-analyses.ts';
import { iso } from '../../present.ts';

/** An analysis session (never `created_by`). */
export function presentAnalysis(a: LegacyAnalysisRow) {
  return {
    analysis_id: a.analysis_id,
    name: a.name,
    description: a.description,
    created_at: iso(a.created_at),
  };
}

/** The month's legacy usage (`GET /v1/legacy-usage`). */
export function presentUsage(u: { month: string; limit: number; used: number; resetsAt: Date }) {
  return { month: u.month, limit: u.limit, used: u.used, resets_at: iso(u.resetsAt) };
}

import type { z } from 'zod';
import type { DetectorCategory, Surface } from '../../../engine/detector.ts';
import type { analyticsBySurface, analyticsTopDetectors } from '../../../services/analytics.ts';
import type { AnalyticsDetectors, AnalyticsSurfaces } from './schema.ts';

/** Scans per surface; the rollups hold only the surfaces a scan request admitted. */
export function presentSurfaces(a: Awaited<ReturnType<typeof analyticsBySurface>>): z.output<typeof AnalyticsSurfaces> {
  return { window: a.window, items: a.items.map((i) => ({ surface: i.surface as Surface, count: i.count })) };
}

/** The top detectors; `category` is the engine registry's (a `DetectorCategory`), or null. */
export function presentTopDetectors(
  a: Awaited<ReturnType<typeof analyticsTopDetectors>>,
): z.output<typeof AnalyticsDetectors> {
  return {
    window: a.window,
    items: a.items.map((i) => ({
      detector: i.detector,
      category: i.category as DetectorCategory | null,
      count: i.count,
    })),
  };
}

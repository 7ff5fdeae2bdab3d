/**
 * The public shape of a detector's finding: one function for the stored scan's `findings` and the
 * `detector` events of a streamed scan, so the two never drift apart.
 */
import type { DetectorResult, FindingItem, Frameworks } from '../engine/detector.ts';
import type { DetectorRun } from '../engine/pipeline.ts';
import type { DetectorRegistry } from '../engine/registry.ts';

/** One detector's finding as stored with a scan and returned by the API. */
export interface ScanFinding {
  detector: string;
  items: FindingItem[];
  frameworks: Frameworks;
}

/** A detector's result as a finding: its items and the frameworks its detector maps to. */
export function shapeFinding(registry: DetectorRegistry, result: DetectorResult): ScanFinding {
  return {
    detector: result.detector,
    items: result.items,
    frameworks: registry.get(result.detector)!.frameworks,
  };
}

/**
 * A streamed scan's `event: detector` payload: the finding plus the detector's score, the time since
 * the scan started and its note (only when it has one). Keys in the order clients have always seen.
 */
export function streamedFinding(registry: DetectorRegistry, { result, ms }: DetectorRun) {
  const { detector, items, frameworks } = shapeFinding(registry, result);
  return {
    detector,
    score: result.score,
    items,
    frameworks,
    elapsed_ms: Math.round(ms * 1000) / 1000,
    ...(result.note ? { note: result.note } : {}),
  };
}

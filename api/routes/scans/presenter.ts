import type { z } from 'zod';
import type { Surface } from '../../../engine/detector.ts';
import { presentScan, type StoredScan } from '../../../services/scan-presenter.ts';
import type { Scan } from './responses.ts';

type ScanOut = z.output<typeof Scan>;

/**
 * The Scan resource of a stored scan (services/scan-presenter.ts builds it; webhooks share it), typed
 * as the document states it. The store types the JSON columns loosely: they hold what
 * services/scans.ts wrote from the engine's typed results, so only those parts are narrowed here.
 */
export function presentScanResource(row: StoredScan, now: Date): ScanOut {
  // Overriding keys of the spread keeps their order: the JSON reads as presentScan writes it.
  const { content, ...scan } = presentScan(row, now);
  return {
    ...scan,
    surface: scan.surface as Surface,
    findings: scan.findings as ScanOut['findings'],
    decision: scan.decision as ScanOut['decision'],
    ...(content ? { content: content as NonNullable<ScanOut['content']> } : {}),
  };
}

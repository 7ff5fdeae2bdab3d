/**
 * What a scan stores of the text its detectors matched (docs/api.md, Scans: raw content only if
 * captured). An uncaptured scan's finding items keep label, confidence, source and span, and their
 * `text` becomes the label tag the redactor writes (`[US_SSN]`, `[prompt_injection]`): every item,
 * since prompt-injection and toxicity windows quote the content as much as a PII value does. A
 * captured scan keeps its text while its content is retained (store/retention.ts masks it at expiry).
 */
import type { FindingItem } from '../engine/detector.ts';
import type { ScanRow } from '../store/scans.ts';
import { labelTag } from './redaction/obfuscate.ts';
import type { ScanFinding } from './scan-findings.ts';

/** The items with their matched text replaced by label tags. */
export function maskedItems(items: readonly FindingItem[]): FindingItem[] {
  return items.map((i) => ({ ...i, text: labelTag(i.label) }));
}

/** The findings with every item's matched text replaced by its label tag. */
export function maskedFindings(findings: readonly ScanFinding[]): ScanFinding[] {
  return findings.map((f) => ({ ...f, items: maskedItems(f.items) }));
}

/** The row as it is stored: an uncaptured scan's findings masked, a captured one's as they are. */
export function storedScan(row: ScanRow): ScanRow {
  return row.content_stored ? row : { ...row, findings: maskedFindings(row.findings as ScanFinding[]) };
}

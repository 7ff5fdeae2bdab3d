/**
 * The envelope of an outbound webhook event, `{type, id, created, api_version, data}`, serialised once
 * per attempt. A scan event's `data` is the scan presenter's summary (services/scan-presenter.ts) of
 * the scan as it is stored now; other events carry their own `data`.
 */
import type { ClaimedDelivery } from '../../store/webhooks.ts';
import { presentScanEvent, type StoredScan } from '../scan-presenter.ts';

/** The envelope of one event, serialised once per attempt: `{type, id, created, api_version, data}`. */
export function envelope(
  d: Pick<ClaimedDelivery, 'event_type' | 'event_id' | 'event_created' | 'data' | 'scan_id' | 'scan'>,
  includeContent: boolean,
  apiVersion: string,
  now: Date,
): string {
  const data = d.scan_id !== null ? scanEventData(d.scan_id, d.scan, includeContent, now) : (d.data ?? {});
  return JSON.stringify({
    type: d.event_type,
    id: d.event_id,
    created: new Date(d.event_created).toISOString(),
    api_version: apiVersion,
    data,
  });
}

/**
 * A scan event's `data` (see `presentScanEvent`); a scan that no longer exists still names itself.
 * `stored` is the scan as the claimed delivery carries it (store/webhooks.ts `ClaimedDelivery.scan`).
 */
export function scanEventData(
  scanId: string,
  stored: Record<string, unknown> | null,
  includeContent: boolean,
  now: Date,
): Record<string, unknown> {
  if (!stored) return { scan_id: scanId };
  return presentScanEvent(stored as unknown as StoredScan, includeContent, now);
}

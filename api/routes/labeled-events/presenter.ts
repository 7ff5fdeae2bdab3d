import type { LabeledEventRow } from '../../../store/labeled-events.ts';
import { iso } from '../../present.ts';

/** The stored row as the spec lists it; `source_data` only when `withSourceData` (get, not list). */
export function presentLabeledEvent(r: LabeledEventRow, withSourceData: boolean) {
  return {
    event_id: r.id,
    source: r.source,
    observed_at: iso(r.observed_at),
    input_redacted: r.input_redacted,
    output_redacted: r.output_redacted,
    verdict: r.verdict,
    verdict_confidence: r.verdict_confidence,
    verdict_reason: r.verdict_reason,
    severity: r.severity,
    framework_refs: r.framework_refs,
    comparator: r.comparator,
    ...(withSourceData ? { source_data: r.source_data ?? null } : {}),
    training_consent: r.training_consent,
    redaction_version: r.redaction_version,
    redaction_policy_id: r.redaction_policy_id,
    evidence_blob_keys: r.evidence_blob_keys,
    created_at: iso(r.created_at),
  };
}

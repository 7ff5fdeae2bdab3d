import type { z } from 'zod';
import type { LabeledEventRow } from '../../../store/labeled-events.ts';
import type { LabeledEvent, LabeledEventsAppended, LabeledEventSummary } from './schema.ts';

type Event = z.output<typeof LabeledEvent>;

/**
 * The stored row as the spec lists it, `extra` (`source_data`) after `comparator`. The JSON columns
 * hold what the append's schema admitted (the comparator's strings redacted), so their types are taken on trust.
 */
function present<X extends object>(r: LabeledEventRow, extra: X) {
  return {
    event_id: r.id,
    source: r.source,
    observed_at: r.observed_at.toISOString(),
    input_redacted: r.input_redacted,
    output_redacted: r.output_redacted,
    verdict: r.verdict as Event['verdict'],
    verdict_confidence: r.verdict_confidence,
    verdict_reason: r.verdict_reason,
    severity: r.severity,
    framework_refs: r.framework_refs as Event['framework_refs'],
    comparator: r.comparator as Event['comparator'],
    ...extra,
    training_consent: r.training_consent,
    redaction_version: r.redaction_version,
    redaction_policy_id: r.redaction_policy_id,
    evidence_blob_keys: r.evidence_blob_keys as Event['evidence_blob_keys'],
    created_at: r.created_at.toISOString(),
  };
}

/** A list row: every field but `source_data`. */
export function presentLabeledEventSummary(r: LabeledEventRow): z.output<typeof LabeledEventSummary> {
  return present(r, {});
}

/** A got event: `source_data` included, null when none. */
export function presentLabeledEvent(r: LabeledEventRow): Event {
  return present(r, { source_data: (r.source_data ?? null) as Event['source_data'] });
}

/** What an append answers: the count and the new ids, in request order. */
export function presentAppended(ids: string[]): z.output<typeof LabeledEventsAppended> {
  return { accepted: ids.length, event_ids: ids };
}

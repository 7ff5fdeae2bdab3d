import type { RedteamFindingRow, RedteamRunRow } from '../../../store/redteam.ts';
import { iso } from '../../present.ts';

/** The Red-team run resource: the spec's fields, in its order (never `created_by`). */
export function presentRun(r: RedteamRunRow) {
  return {
    run_id: r.id,
    state: r.state,
    scope_hash: r.scope_hash,
    scope_redacted: r.scope_redacted,
    upload_enabled: r.upload_enabled,
    training_consent: r.training_consent,
    written_authorization: r.written_authorization,
    attached_authenticated: r.attached_authenticated,
    started_at: iso(r.started_at),
    finished_at: iso(r.finished_at),
    verdict: r.verdict,
    verdict_reason: r.verdict_reason,
    model_versions: r.model_versions,
    corpus_hashes: r.corpus_hashes,
    redteam_version: r.redteam_version,
    operator_id: r.operator_id,
    created_at: iso(r.created_at),
  };
}

/** A finding as the findings list returns it. */
export function presentFinding(f: RedteamFindingRow) {
  return {
    finding_id: f.id,
    run_id: f.run_id,
    attack_class: f.attack_class,
    severity: f.severity,
    title: f.title,
    description: f.description,
    framework_refs: f.framework_refs,
    representative_event_id: f.representative_event_id,
    remediation_class: f.remediation_class,
    created_at: iso(f.created_at),
  };
}

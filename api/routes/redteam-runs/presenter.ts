import type { z } from 'zod';
import type { AddedFindings } from '../../../services/redteam/findings.ts';
import type { RedteamFindingRow, RedteamRunRow } from '../../../store/redteam.ts';
import { iso } from '../../present.ts';
import type { RedteamFinding, RedteamFindingsAdded, RedteamRun } from './schema.ts';

/** The Red-team run resource: the spec's fields, in its order (never `created_by`). */
export function presentRun(r: RedteamRunRow): z.output<typeof RedteamRun> {
  return {
    run_id: r.id,
    state: r.state,
    scope_hash: r.scope_hash,
    scope_redacted: r.scope_redacted,
    upload_enabled: r.upload_enabled,
    training_consent: r.training_consent,
    written_authorization: r.written_authorization,
    attached_authenticated: r.attached_authenticated,
    started_at: r.started_at.toISOString(),
    finished_at: iso(r.finished_at),
    verdict: r.verdict,
    verdict_reason: r.verdict_reason,
    model_versions: r.model_versions,
    corpus_hashes: r.corpus_hashes,
    redteam_version: r.redteam_version,
    operator_id: r.operator_id,
    created_at: r.created_at.toISOString(),
  };
}

/** A finding as the findings list returns it. */
export function presentFinding(f: RedteamFindingRow): z.output<typeof RedteamFinding> {
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
    created_at: f.created_at.toISOString(),
  };
}

/** What an add-findings call answers: the count and the new ids, in request order. */
export function presentAdded(a: AddedFindings): z.output<typeof RedteamFindingsAdded> {
  return { accepted: a.accepted, finding_ids: a.finding_ids };
}

/**
 * The organization's redaction policy (docs/api.md, "Redaction policy"): what the redactor does to
 * each PII label the scan engine's PII detector reports. Every replace inserts a new row (`rdp_…`);
 * the newest is in force and earlier ones stay, since labeled events name the one that redacted them.
 */
import { PII_REGEX_LABELS } from '../../engine/detectors/pii-regex.ts';
import { newId } from '../../lib/ids.ts';
import { REDACTION_FIELDS } from './obfuscate.ts';
import type { Clock } from '../../lib/clock.ts';
import { insertManagementAudit } from '../../store/audit.ts';
import { withTransaction, type Db } from '../../store/db.ts';
import * as store from '../../store/redaction-policies.ts';
import type { Obfuscation, RedactionPolicyRow } from '../../store/redaction-policies.ts';

export type { Obfuscation } from '../../store/redaction-policies.ts';

export const OBFUSCATIONS = ['redact', 'hash', 'pass_through'] as const satisfies readonly Obfuscation[];

/** The labels pii-ner emits besides `O` (models/manifest.json; a unit test keeps the two equal). */
export const PII_NER_LABELS: readonly string[] = ['PERSON', 'LOCATION', 'ORGANIZATION', 'ADDRESS'];

/** Every label the PII detector reports: `field_rules` keys for detected spans. */
export const REDACTION_LABELS: ReadonlySet<string> = new Set([...PII_REGEX_LABELS, ...PII_NER_LABELS]);

/** Every key `field_rules` accepts: a PII label (its spans) or a redacted field's name (its whole value). */
export const FIELD_RULE_KEYS: ReadonlySet<string> = new Set([...REDACTION_LABELS, ...REDACTION_FIELDS]);

/** At most this many `field_rules` keys. */
export const MAX_FIELD_RULES = 64;

export const REDACTION_VERSION_PATTERN = /^redactor-v\d+\.\d+\.\d+$/;

/** The validated replace body (api/routes/redaction-policy/schema.ts checks it). */
export interface ReplaceRedactionPolicyInput {
  field_rules: Record<string, Obfuscation>;
  default_obfuscation: Obfuscation;
  override_allowed_for_reviewers: boolean;
  redaction_version: string;
}

/** The policy as the API shows it; `id` and the times are null for the built-in default. */
export interface RedactionPolicyView extends ReplaceRedactionPolicyInput {
  id: string | null;
  created_at: Date | null;
  updated_at: Date | null;
}

/** What applies to an organization that never set a policy: every detected span redacted. */
export const DEFAULT_REDACTION_POLICY: Readonly<RedactionPolicyView> = Object.freeze({
  id: null,
  field_rules: {},
  default_obfuscation: 'redact',
  override_allowed_for_reviewers: false,
  redaction_version: 'redactor-v1.0.0',
  created_at: null,
  updated_at: null,
});

export interface RedactionPolicyDeps {
  db: Db;
  clock: Clock;
}

/** Who replaces the policy: the calling principal's actor id and the request id. */
export interface RedactionPolicyActor {
  id: string;
  requestId: string | null;
}

const view = (row: RedactionPolicyRow | null): RedactionPolicyView => (row ? { ...row } : DEFAULT_REDACTION_POLICY);

/** The policy in force for the organization (the built-in default when none was ever set). */
export async function getRedactionPolicy(deps: RedactionPolicyDeps, orgId: string): Promise<RedactionPolicyView> {
  return view(await store.currentRedactionPolicy(deps.db, orgId));
}

/** Whether two bodies say the same thing (field_rules compared as a map: key order does not matter). */
function samePolicy(a: ReplaceRedactionPolicyInput, b: ReplaceRedactionPolicyInput): boolean {
  const keys = Object.keys(a.field_rules);
  return (
    a.default_obfuscation === b.default_obfuscation &&
    a.override_allowed_for_reviewers === b.override_allowed_for_reviewers &&
    a.redaction_version === b.redaction_version &&
    keys.length === Object.keys(b.field_rules).length &&
    keys.every((k) => b.field_rules[k] === a.field_rules[k])
  );
}

/**
 * Replaces the organization's policy: a new row (and a management audit row) in one transaction,
 * unless the body equals the policy in force, which is answered as it is (no row, no audit).
 * `created_at` is carried from the organization's first policy; `updated_at` is this row's time.
 */
export async function replaceRedactionPolicy(
  deps: RedactionPolicyDeps,
  orgId: string,
  input: ReplaceRedactionPolicyInput,
  actor: RedactionPolicyActor,
): Promise<{ policy: RedactionPolicyView; created: boolean }> {
  const now = deps.clock.now();
  return withTransaction(deps.db, async (tx) => {
    await store.lockRedactionPolicies(tx, orgId);
    const current = await store.currentRedactionPolicy(tx, orgId);
    if (current && samePolicy(current, input)) return { policy: view(current), created: false };
    const row = await store.insertRedactionPolicy(tx, {
      id: newId('redactionPolicy', now.getTime()),
      org_id: orgId,
      field_rules: input.field_rules,
      default_obfuscation: input.default_obfuscation,
      override_allowed_for_reviewers: input.override_allowed_for_reviewers,
      redaction_version: input.redaction_version,
      created_at: current?.created_at ?? now,
      updated_at: now,
    });
    const rules = Object.entries(input.field_rules)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ');
    await insertManagementAudit(tx, orgId, {
      created: now,
      actorId: actor.id,
      requestId: actor.requestId,
      resourceType: 'redaction_policy',
      resourceId: row.id,
      changeSummary:
        `redaction policy replaced (${input.redaction_version}): default ${input.default_obfuscation}` +
        `${rules ? `; ${rules}` : ''}; reviewer override ${input.override_allowed_for_reviewers ? 'allowed' : 'not allowed'}`,
    });
    return { policy: view(row), created: true };
  });
}

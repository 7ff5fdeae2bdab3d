import type { RedactionPolicyView } from '../../../services/redaction/policy.ts';
import type { z } from 'zod';
import { iso } from '../../present.ts';
import type { RedactionPolicy } from './schema.ts';

/** The Redaction policy resource; the built-in default has a null `policy_id` and null times. */
export function presentRedactionPolicy(p: RedactionPolicyView): z.output<typeof RedactionPolicy> {
  return {
    policy_id: p.id,
    field_rules: p.field_rules,
    default_obfuscation: p.default_obfuscation,
    override_allowed_for_reviewers: p.override_allowed_for_reviewers,
    redaction_version: p.redaction_version,
    created_at: p.created_at ? iso(p.created_at) : null,
    updated_at: p.updated_at ? iso(p.updated_at) : null,
  };
}

import { z } from 'zod';
import {
  FIELD_RULE_KEYS,
  MAX_FIELD_RULES,
  OBFUSCATIONS,
  REDACTION_VERSION_PATTERN,
  type ReplaceRedactionPolicyInput,
} from '../../../services/redaction/policy.ts';
import { nullableInstant, resource } from '../../resources.ts';

const obfuscation = z.enum(OBFUSCATIONS, `must be one of ${OBFUSCATIONS.join(', ')}`);

/**
 * `field_rules`: PII label (as the PII detector reports it) or redacted field name → obfuscation; an
 * unknown key is an issue at `field_rules.<KEY>`, and at most MAX_FIELD_RULES keys.
 */
const fieldRules = z
  .record(z.string(), obfuscation, 'must be an object of PII label or field name to obfuscation')
  .superRefine((rules, ctx) => {
    const keys = Object.keys(rules);
    if (keys.length > MAX_FIELD_RULES)
      ctx.addIssue({ code: 'custom', message: `must hold at most ${MAX_FIELD_RULES} keys` });
    for (const key of keys)
      if (!FIELD_RULE_KEYS.has(key))
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `is not a PII label or field name; one of ${[...FIELD_RULE_KEYS].join(', ')}`,
        });
  });

export const replaceRedactionPolicyBody = z.strictObject({
  field_rules: fieldRules,
  default_obfuscation: obfuscation,
  override_allowed_for_reviewers: z.boolean('must be a boolean'),
  redaction_version: z
    .string('must be a string')
    .regex(REDACTION_VERSION_PATTERN, 'must match redactor-v<major>.<minor>.<patch>'),
}) satisfies z.ZodType<ReplaceRedactionPolicyInput>;

/** The Redaction policy resource (`GET` and `PUT /v1/org/redaction-policy`). */
export const RedactionPolicy = resource(
  'RedactionPolicy',
  z.object({
    policy_id: z
      .string()
      .nullable()
      .describe('This version of the policy; null for the built-in default (no policy was ever set).'),
    field_rules: z
      .record(z.string(), z.enum(OBFUSCATIONS))
      .describe(
        'PII label (as the PII detector reports it: its detected spans) or redacted field name (`input`, `output`, `comparator`, `verdict_reason`, `scope_redacted`, `title`, `description`: the whole value) → obfuscation. A field rule wins over label rules in its field; labels without a rule use `default_obfuscation`.',
      ),
    default_obfuscation: z.enum(OBFUSCATIONS),
    override_allowed_for_reviewers: z.boolean(),
    redaction_version: z.string().describe('`redactor-v<major>.<minor>.<patch>`.'),
    created_at: nullableInstant.describe("When the organization's first policy was set; null for the default."),
    updated_at: nullableInstant.describe('When this version was set; null for the default.'),
  }),
  "The organization's redaction policy in force.",
);

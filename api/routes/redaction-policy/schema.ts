import { z } from 'zod';
import {
  MAX_FIELD_RULES,
  OBFUSCATIONS,
  REDACTION_LABELS,
  REDACTION_VERSION_PATTERN,
  type ReplaceRedactionPolicyInput,
} from '../../../services/redaction/policy.ts';

const obfuscation = z.enum(OBFUSCATIONS, `must be one of ${OBFUSCATIONS.join(', ')}`);

/**
 * `field_rules`: PII label (as the PII detector reports it) → obfuscation; an unknown label is an
 * issue at `field_rules.<LABEL>`, and at most MAX_FIELD_RULES labels.
 */
const fieldRules = z
  .record(z.string(), obfuscation, 'must be an object of PII label to obfuscation')
  .superRefine((rules, ctx) => {
    const keys = Object.keys(rules);
    if (keys.length > MAX_FIELD_RULES)
      ctx.addIssue({ code: 'custom', message: `must hold at most ${MAX_FIELD_RULES} labels` });
    for (const key of keys)
      if (!REDACTION_LABELS.has(key))
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `is not a PII label; one of ${[...REDACTION_LABELS].join(', ')}`,
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

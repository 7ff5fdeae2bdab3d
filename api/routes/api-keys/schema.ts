import { z } from 'zod';
import { SCOPES } from '../../../lib/scopes.ts';
import type { CreateKeyInput } from '../../../services/api-keys.ts';
import { pageQuery } from '../../pagination.ts';

export const apiKeyIdParams = z.object({
  api_key_id: z.string().regex(/^ak_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be ak_ followed by 26 Crockford base32 characters'),
});

export const createApiKeyBody = z
  .strictObject({
    name: z
      .string()
      .min(1, 'must be 1 to 120 characters')
      .max(120, 'must be 1 to 120 characters')
      .refine((s) => s.trim().length > 0, 'must not be blank'),
    scopes: z
      .array(z.enum(SCOPES))
      .min(1, 'must name at least one scope')
      .max(SCOPES.length * 4),
    environment: z.enum(['live', 'test']).default('live'),
    expires_at: z.iso
      .datetime({ offset: true, message: 'must be an RFC 3339 date-time' })
      .transform((s) => new Date(s))
      .nullable()
      .optional(),
    no_expiry: z.boolean().default(false),
  })
  .refine((v) => !(v.no_expiry && v.expires_at), {
    path: ['no_expiry'],
    message: 'cannot be true when expires_at is set',
  });

// A validated body is what services/api-keys.ts declares: this stops compiling when the two drift.
createApiKeyBody satisfies z.ZodType<CreateKeyInput>;

export const listApiKeysQuery = pageQuery;

export type CreateApiKeyBody = z.infer<typeof createApiKeyBody>;

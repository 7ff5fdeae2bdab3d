import { z } from 'zod';
import { SCOPES } from '../../../lib/scopes.ts';
import type { CreateKeyInput } from '../../../services/api-keys.ts';
import { pageQuery } from '../../pagination.ts';
import { instant, nullableInstant, pageOf, resource } from '../../resources.ts';

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

/** The API key resource (`presentApiKey`): never its secret. */
export const apiKeySchema = resource(
  'ApiKey',
  z.object({
    id: z.string().describe('`ak_` followed by 26 Crockford base32 characters.'),
    name: z.string(),
    prefix: z.enum(['sk_live', 'sk_test']).describe('How the secret begins: `sk_` and the environment.'),
    last_four: z.string().describe('The last four characters of the secret, to tell keys apart.'),
    scopes: z.array(z.enum(SCOPES)),
    environment: z.enum(['live', 'test']),
    created_at: instant,
    expires_at: nullableInstant.describe('When the key stops authenticating; null: never.'),
    revoked_at: nullableInstant.describe('When the key was revoked (or rotated); null: it is not.'),
    last_used_at: nullableInstant.describe('When the key last authenticated a request; null: never.'),
    rotated_from: z.string().nullable().describe('The key this one replaced by rotation; null for a created key.'),
  }),
);

/** An API key with its secret: the create and rotate answers, the only ones that carry it. */
export const apiKeyWithSecretSchema = resource(
  'ApiKeyWithSecret',
  apiKeySchema.extend({
    secret: z.string().describe('The bearer secret (`sk_live_…`/`sk_test_…`): shown once, never stored in clear.'),
  }),
);

/** A page of `GET /v1/api-keys`. */
export const apiKeyPageSchema = pageOf('ApiKeyPage', apiKeySchema);

import type { z } from 'zod';
import type { Scope } from '../../../lib/scopes.ts';
import type { ApiKeyRow } from '../../../store/api-keys.ts';
import { iso } from '../../present.ts';
import type { apiKeySchema, apiKeyWithSecretSchema } from './schema.ts';

/** The API key resource; with `secret`, the create and rotate answers (the only ones that carry it). */
export function presentApiKey(k: ApiKeyRow): z.output<typeof apiKeySchema>;
export function presentApiKey(k: ApiKeyRow, secret: string): z.output<typeof apiKeyWithSecretSchema>;
export function presentApiKey(
  k: ApiKeyRow,
  secret?: string,
): z.output<typeof apiKeySchema> | z.output<typeof apiKeyWithSecretSchema> {
  return {
    id: k.id,
    name: k.name,
    prefix: `sk_${k.environment}`,
    last_four: k.last_four,
    // Every way a key is made (API, CLI, bootstrap) validates its scopes against SCOPES.
    scopes: k.scopes as Scope[],
    environment: k.environment,
    created_at: k.created_at.toISOString(),
    expires_at: iso(k.expires_at),
    revoked_at: iso(k.revoked_at),
    last_used_at: iso(k.last_used_at),
    rotated_from: k.rotated_from,
    ...(secret === undefined ? {} : { secret }),
  };
}

import type { ApiKeyRow } from '../../../store/api-keys.ts';
import { iso } from '../../present.ts';

/** The API key resource; `secret` only on the create and rotate responses. */
export function presentApiKey(k: ApiKeyRow, secret?: string) {
  return {
    id: k.id,
    name: k.name,
    prefix: `sk_${k.environment}`,
    last_four: k.last_four,
    scopes: k.scopes,
    environment: k.environment,
    created_at: iso(k.created_at),
    expires_at: iso(k.expires_at),
    revoked_at: iso(k.revoked_at),
    last_used_at: iso(k.last_used_at),
    rotated_from: k.rotated_from,
    ...(secret === undefined ? {} : { secret }),
  };
}

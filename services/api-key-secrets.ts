import { hmacSha256, randomBase62 } from '../lib/crypto.ts';

/** `sk_live_` / `sk_test_` followed by 43 base62 characters (32 random bytes). */
const SECRET_SHAPE = /^sk_(live|test)_[0-9A-Za-z]{43}$/;

export function mintSecret(environment: 'live' | 'test'): string {
  return `sk_${environment}_${randomBase62(32)}`;
}

/** Whether a bearer token could be one of our secrets; a cheap reject before any lookup. */
export function looksLikeSecret(token: string): boolean {
  return SECRET_SHAPE.test(token);
}

/** The keyed hash stored in place of the secret (HMAC-SHA256 under a key derived from SECRET_KEY). */
export function hashSecret(hashKey: Buffer, secret: string): Buffer {
  return hmacSha256(hashKey, secret);
}

import { createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/** Purposes for which subkeys are derived from the master secret; one key per purpose. */
export type KeyPurpose = 'api-key-hash' | 'cursor' | 'webhook-secret-encryption';

/** Subkeys derived once from the master secret (HKDF-SHA256). */
export interface Keyring {
  readonly apiKeyHash: Buffer;
  readonly cursor: Buffer;
  readonly webhookSecretEncryption: Buffer;
}

function derive(master: Buffer, purpose: KeyPurpose): Buffer {
  return Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), `content-firewall/${purpose}`, 32));
}

/** Derives every purpose key from the master secret. */
export function buildKeyring(master: Buffer): Keyring {
  return Object.freeze({
    apiKeyHash: derive(master, 'api-key-hash'),
    cursor: derive(master, 'cursor'),
    webhookSecretEncryption: derive(master, 'webhook-secret-encryption'),
  });
}

export function hmacSha256(key: Buffer, data: string | Buffer): Buffer {
  return createHmac('sha256', key).update(data).digest();
}

export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

export function safeEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * `bytes` random bytes as base62 text (no `_` or `-`, so a secret survives double-click selection
 * and never collides with the `sk_live_` separator). 32 bytes give 43 characters.
 */
export function randomBase62(bytes: number): string {
  const length = Math.ceil((bytes * 8) / Math.log2(62));
  let out = '';
  // Rejection sampling keeps every character uniform: bytes >= 248 would bias toward the first symbols.
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248) out += BASE62[b % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

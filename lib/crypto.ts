import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

/** Purposes for which subkeys are derived from the master secret; one key per purpose. */
export type KeyPurpose =
  | 'api-key-hash'
  | 'cursor'
  | 'webhook-secret-encryption'
  | 'idempotency-response'
  | 'evidence-upload'
  | 'redaction-hash'
  | 'secret-check';

/** Subkeys derived once from the master secret (HKDF-SHA256). */
export interface Keyring {
  readonly apiKeyHash: Buffer;
  readonly cursor: Buffer;
  readonly webhookSecretEncryption: Buffer;
  /** Seals stored idempotency replays, which may hold a one-time secret (key create, webhook create, rotations). */
  readonly idempotencyResponse: Buffer;
  /** Signs the local backend's evidence upload URLs (services/evidence/local-storage.ts). */
  readonly evidenceUpload: Buffer;
  /** Keys the redactor's hash tags, through a per-organization subkey (services/redaction/obfuscate.ts). */
  readonly redactionHash: Buffer;
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
    idempotencyResponse: derive(master, 'idempotency-response'),
    evidenceUpload: derive(master, 'evidence-upload'),
    redactionHash: derive(master, 'redaction-hash'),
  });
}

/**
 * What the database records of the master secret (store/secret-check.ts): an HMAC under its own derived key,
 * so a process can tell a replaced secret from the one every stored hash was made with, and it reveals nothing.
 */
export function secretFingerprint(master: Buffer): string {
  return hmacSha256(derive(master, 'secret-check'), 'content-firewall master secret').toString('hex').slice(0, 32);
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

const SEALED_V1 = 0x01;
const NONCE = 12;
const TAG = 16;

/**
 * AES-256-GCM: version byte (1) | nonce (12) | tag (16) | ciphertext. `aad` binds the ciphertext to
 * where it is stored (e.g. its organization and row), so a copy elsewhere does not open.
 */
export function seal(key: Buffer, plaintext: Buffer | string, aad: string): Buffer {
  const nonce = randomBytes(NONCE);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([Buffer.of(SEALED_V1), nonce, cipher.getAuthTag(), body]);
}

/** Whether `data` starts like a `seal` output (rows written before sealing existed do not). */
export function isSealed(data: Buffer): boolean {
  return data.length >= 1 + NONCE + TAG && data[0] === SEALED_V1;
}

/** @throws Error when `sealed` was altered, or sealed under another key or `aad`. */
export function unseal(key: Buffer, sealed: Buffer, aad: string): Buffer {
  if (!isSealed(sealed)) throw new Error('not a sealed value');
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(1, 1 + NONCE));
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(sealed.subarray(1 + NONCE, 1 + NONCE + TAG));
  return Buffer.concat([decipher.update(sealed.subarray(1 + NONCE + TAG)), decipher.final()]);
}

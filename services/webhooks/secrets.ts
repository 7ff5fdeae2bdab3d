/**
 * Webhook signing secrets: minted here, returned once (create, rotate), stored only encrypted
 * (AES-256-GCM, lib/crypto.ts `seal`) under the keyring's `webhook-secret-encryption` subkey (HKDF
 * from SECRET_KEY, or the embedded default's `DATA_DIR/secret.key`). The ciphertext is bound to its
 * organization and webhook, so a row copied onto another webhook does not decrypt.
 */
import { randomBase62, seal, unseal } from '../../lib/crypto.ts';

/** `whsec_` followed by 43 base62 characters (32 random bytes). */
export function mintWebhookSecret(): string {
  return `whsec_${randomBase62(32)}`;
}

export function encryptSecret(key: Buffer, orgId: string, webhookId: string, secret: string): Buffer {
  return seal(key, secret, `webhook-secret/${orgId}/${webhookId}`);
}

/** @throws Error when the ciphertext was altered, or was made under another key or for another webhook. */
export function decryptSecret(key: Buffer, orgId: string, webhookId: string, sealed: Buffer): string {
  return unseal(key, sealed, `webhook-secret/${orgId}/${webhookId}`).toString('utf8');
}

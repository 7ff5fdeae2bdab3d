import { hmacSha256, safeEqual } from './crypto.ts';

/**
 * Opaque, tamper-evident pagination cursors: base64url(JSON payload) + "." + base64url(HMAC).
 * The MAC covers the list name and the organization, so a cursor from another list or another
 * organization is as invalid as an edited one.
 */
export class CursorCodec {
  constructor(private readonly key: Buffer) {}

  encode(list: string, orgId: string, payload: Record<string, unknown>): string {
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${body}.${this.mac(list, orgId, body)}`;
  }

  /** The payload, or null when the cursor is malformed or its MAC does not verify. */
  decode(list: string, orgId: string, cursor: string): Record<string, unknown> | null {
    if (cursor.length > 2048) return null;
    const dot = cursor.indexOf('.');
    if (dot <= 0) return null;
    const body = cursor.slice(0, dot);
    const mac = Buffer.from(cursor.slice(dot + 1), 'base64url');
    if (!safeEqual(mac, Buffer.from(this.mac(list, orgId, body), 'base64url'))) return null;
    try {
      const value: unknown = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
      return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
    } catch {
      return null;
    }
  }

  private mac(list: string, orgId: string, body: string): string {
    return hmacSha256(this.key, `${list}\n${orgId}\n${body}`).subarray(0, 16).toString('base64url');
  }
}

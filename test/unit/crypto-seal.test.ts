import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isSealed, seal, unseal } from '../../lib/crypto.ts';

describe('seal / unseal (AES-256-GCM)', () => {
  const key = randomBytes(32);

  it('round-trips, with a fresh nonce each time', () => {
    const a = seal(key, 'whsec_secret', 'org/wh');
    const b = seal(key, 'whsec_secret', 'org/wh');
    expect(isSealed(a)).toBe(true);
    expect(a.equals(b)).toBe(false);
    expect(unseal(key, a, 'org/wh').toString()).toBe('whsec_secret');
    expect(a.includes(Buffer.from('whsec_secret'))).toBe(false);
  });

  it('refuses another key, another binding, a changed byte, or a plain value', () => {
    const sealed = seal(key, Buffer.from('{"secret":"x"}'), 'idempotency/org_A/k');
    expect(() => unseal(randomBytes(32), sealed, 'idempotency/org_A/k')).toThrow();
    expect(() => unseal(key, sealed, 'idempotency/org_B/k')).toThrow();
    const altered = Buffer.from(sealed);
    altered[altered.length - 1]! ^= 1;
    expect(() => unseal(key, altered, 'idempotency/org_A/k')).toThrow();
    expect(isSealed(Buffer.from('{"id":"ak_1"}'))).toBe(false);
    expect(() => unseal(key, Buffer.from('{"id":"ak_1"}'), 'x')).toThrow(/not a sealed value/);
  });
});

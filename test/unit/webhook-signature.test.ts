import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as client from '../../client/webhooks.ts';
import {
  InvalidWebhookSignatureError,
  signWebhookPayload,
  verifyWebhookSignature,
  WebhookSignatureError,
  WebhookTimestampExpiredError,
} from '../../client/webhook-signature.ts';

const OLD = 'whsec_old_4f9a1c2e8b7d6a5f';
const NEW = 'whsec_new_0b1c2d3e4f5a6b7c';
const T = 1_760_000_000;
const NOW = T * 1000;
const BODY = '{"type":"scan.blocked","id":"evt_1","created":1760000000,"api_version":"2025-01-01","data":{"x":1}}';

const hmacHex = (secret: string, t: number, body: string | Uint8Array) =>
  createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');

/** The thrown error's code, or 'ok' when verification passed. */
function outcome(fn: () => unknown): string {
  try {
    fn();
    return 'ok';
  } catch (err) {
    if (err instanceof WebhookSignatureError) return err.code;
    throw err;
  }
}

const verifyCode = (
  header: string | null | undefined,
  body: string | Uint8Array = BODY,
  secrets: string | string[] = NEW,
  now = NOW,
) => outcome(() => verifyWebhookSignature(body, header, secrets, { now }));

describe('signWebhookPayload', () => {
  it('emits t then one v1 per secret, in order, as hex HMAC-SHA256 of "{t}.{body}" keyed with the whole secret', () => {
    expect(signWebhookPayload(BODY, [OLD, NEW], T)).toBe(
      `t=${T},v1=${hmacHex(OLD, T, BODY)},v1=${hmacHex(NEW, T, BODY)}`,
    );
  });
  it('signs bytes and the equivalent UTF-8 string alike', () => {
    const body = 'héllo ✓';
    expect(signWebhookPayload(Buffer.from(body, 'utf8'), [NEW], T)).toBe(signWebhookPayload(body, [NEW], T));
  });
  it.each([
    ['no secrets', [] as string[], T],
    ['an empty secret', [''], T],
    ['a zero timestamp', [NEW], 0],
    ['a fractional timestamp', [NEW], 1.5],
    ['a NaN timestamp', [NEW], Number.NaN],
  ])('throws a TypeError on %s', (_, secrets, t) => {
    expect(() => signWebhookPayload(BODY, secrets, t)).toThrow(TypeError);
  });
});

describe('verifyWebhookSignature', () => {
  const header = signWebhookPayload(BODY, [NEW], T);

  it('round-trips and returns the timestamp', () => {
    expect(verifyWebhookSignature(BODY, header, NEW, { now: NOW })).toEqual({ timestamp: T });
    expect(verifyWebhookSignature(BODY, header, [NEW], { now: new Date(NOW) })).toEqual({ timestamp: T });
  });

  it('during a rotation, a delivery signed with old and new secrets verifies with either', () => {
    const both = signWebhookPayload(BODY, [OLD, NEW], T);
    expect(verifyCode(both, BODY, OLD)).toBe('ok');
    expect(verifyCode(both, BODY, NEW)).toBe('ok');
    expect(verifyCode(both, BODY, ['whsec_other', NEW])).toBe('ok');
    // A receiver that already rotated still accepts a delivery signed with the old secret only, if it keeps both.
    expect(verifyCode(signWebhookPayload(BODY, [OLD], T), BODY, [NEW, OLD])).toBe('ok');
  });

  it('refuses a wrong secret', () => {
    expect(verifyCode(header, BODY, 'whsec_wrong')).toBe('invalid_signature');
    expect(verifyCode(header, BODY, [OLD])).toBe('invalid_signature');
  });

  it('refuses a body altered by one byte', () => {
    const altered = BODY.replace('"x":1', '"x":2');
    expect(verifyCode(header, altered)).toBe('invalid_signature');
    expect(verifyCode(header, `${BODY} `)).toBe('invalid_signature');
    expect(verifyCode(header, BODY.slice(0, -1))).toBe('invalid_signature');
  });

  it.each([
    [300, 'ok'],
    [-300, 'ok'],
    [301, 'timestamp_expired'],
    [-301, 'timestamp_expired'],
  ])('with the default 300 s tolerance, a clock %i s away is %s', (skew, expected) => {
    expect(verifyCode(header, BODY, NEW, NOW + skew * 1000)).toBe(expected);
  });

  it('honours a custom tolerance, including zero', () => {
    const at = (now: number, toleranceSeconds: number) =>
      outcome(() => verifyWebhookSignature(BODY, header, NEW, { now, toleranceSeconds }));
    expect(at(NOW + 60_000, 60)).toBe('ok');
    expect(at(NOW + 61_000, 60)).toBe('timestamp_expired');
    expect(at(NOW - 61_000, 60)).toBe('timestamp_expired');
    expect(at(NOW, 0)).toBe('ok');
    expect(at(NOW + 999, 0)).toBe('ok'); // same second
    expect(at(NOW + 1000, 0)).toBe('timestamp_expired');
    expect(at(NOW + 3600_000, 3600)).toBe('ok');
  });

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY, '300' as unknown as number])(
    'throws a TypeError on tolerance %s',
    (toleranceSeconds) => {
      expect(() => verifyWebhookSignature(BODY, header, NEW, { now: NOW, toleranceSeconds })).toThrow(TypeError);
    },
  );

  it('throws a TypeError when no secret is given, or the body is a parsed object', () => {
    expect(() => verifyWebhookSignature(BODY, header, [])).toThrow(TypeError);
    expect(() => verifyWebhookSignature(BODY, header, '')).toThrow(TypeError);
    expect(() => verifyWebhookSignature({ x: 1 } as unknown as string, header, NEW)).toThrow(TypeError);
  });

  it('reports an expired timestamp only once the HMAC passes: a forged, old delivery is invalid', () => {
    const old = signWebhookPayload(BODY, [NEW], T - 3600);
    expect(verifyCode(old)).toBe('timestamp_expired');
    const forged = `t=${T - 3600},v1=${hmacHex('whsec_attacker', T - 3600, BODY)}`;
    expect(verifyCode(forged)).toBe('invalid_signature');
    // Replaying an old signature under a fresh t breaks the MAC.
    expect(verifyCode(old.replace(`t=${T - 3600}`, `t=${T}`))).toBe('invalid_signature');
  });

  it('verifies a body that is not JSON, so it never parses it', () => {
    for (const body of ['not json {', '', '\u0000\u0001binary', 'a'.repeat(100_000)]) {
      expect(verifyCode(signWebhookPayload(body, [NEW], T), body)).toBe('ok');
    }
  });

  it('verifies a Buffer body, including bytes that are not valid UTF-8', () => {
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x80]);
    const h = signWebhookPayload(bytes, [NEW], T);
    expect(verifyCode(h, bytes)).toBe('ok');
    expect(verifyCode(h, new Uint8Array(bytes))).toBe('ok');
    // Decoding then re-encoding (what a parse-and-serialise step would do) breaks it.
    expect(verifyCode(h, bytes.toString('utf8'))).toBe('invalid_signature');
  });

  describe('header variants', () => {
    const v1 = hmacHex(NEW, T, BODY);
    const other = hmacHex(OLD, T, BODY);
    it.each([
      ['canonical', `t=${T},v1=${v1}`, 'ok'],
      ['spaces around entries and =', ` t = ${T} ,  v1= ${v1} `, 'ok'],
      ['v1 before t', `v1=${v1},t=${T}`, 'ok'],
      ['extra v0 and unknown schemes', `t=${T},v0=${'ab'.repeat(32)},v1=${v1},v2=zz,x=1`, 'ok'],
      ['a non-matching v1 before the matching one', `t=${T},v1=${other},v1=${v1}`, 'ok'],
      ['upper-case hex', `t=${T},v1=${v1.toUpperCase()}`, 'ok'],
      ['a v1 of another length', `t=${T},v1=${v1.slice(0, 62)}`, 'invalid_signature'],
      ['only a v0 matching', `t=${T},v0=${v1}`, 'invalid_signature'],
      ['duplicate t', `t=${T},t=${T},v1=${v1}`, 'invalid_signature'],
      ['duplicate t with different values', `t=${T},v1=${v1},t=${T - 1}`, 'invalid_signature'],
      ['missing t', `v1=${v1}`, 'invalid_signature'],
      ['missing v1', `t=${T}`, 'invalid_signature'],
      ['empty', '', 'invalid_signature'],
      ['null', null, 'invalid_signature'],
      ['undefined', undefined, 'invalid_signature'],
      ['non-hex v1', `t=${T},v1=${v1.slice(0, 63)}g`, 'invalid_signature'],
      ['odd-length hex v1', `t=${T},v1=${v1}0`, 'invalid_signature'],
      ['empty v1', `t=${T},v1=,v1=${v1}`, 'invalid_signature'],
      ['t with a fraction', `t=${T}.0,v1=${v1}`, 'invalid_signature'],
      ['t negative', `t=-${T},v1=${v1}`, 'invalid_signature'],
      ['t zero', `t=0,v1=${hmacHex(NEW, 0, BODY)}`, 'invalid_signature'],
      ['t with a leading zero', `t=0${T},v1=${v1}`, 'invalid_signature'],
      ['t in hex', `t=0x${T.toString(16)},v1=${v1}`, 'invalid_signature'],
      ['t beyond a safe integer', `t=99999999999999999,v1=${v1}`, 'invalid_signature'],
      ['an entry without =', `t=${T},v1=${v1},garbage`, 'invalid_signature'],
      ['a trailing comma', `t=${T},v1=${v1},`, 'invalid_signature'],
      ['an entry with an empty key', `t=${T},=x,v1=${v1}`, 'invalid_signature'],
      ['longer than 8 KiB', `t=${T},v1=${v1}${`,v0=${'a'.repeat(64)}`.repeat(120)}`, 'invalid_signature'],
    ])('%s → %s', (_, h, expected) => {
      expect(verifyCode(h)).toBe(expected);
    });

    it('accepts a header just under 8 KiB (many rotation signatures)', () => {
      const filler = `,v0=${'a'.repeat(64)}`.repeat(100);
      const h = `t=${T},v1=${v1}${filler}`;
      expect(h.length).toBeLessThanOrEqual(8192);
      expect(verifyCode(h)).toBe('ok');
    });
  });

  it('throws typed errors receivers can tell apart with instanceof', () => {
    try {
      verifyWebhookSignature(BODY, 'garbage', NEW, { now: NOW });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(InvalidWebhookSignatureError);
      expect(err).toBeInstanceOf(WebhookSignatureError);
      expect(err).toBeInstanceOf(Error);
      expect(err).not.toBeInstanceOf(WebhookTimestampExpiredError);
      expect((err as WebhookSignatureError).name).toBe('InvalidWebhookSignatureError');
    }
    try {
      verifyWebhookSignature(BODY, header, NEW, { now: NOW + 3_600_000 });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(WebhookTimestampExpiredError);
      expect(err).toBeInstanceOf(WebhookSignatureError);
      expect((err as WebhookTimestampExpiredError).code).toBe('timestamp_expired');
      expect((err as WebhookTimestampExpiredError).timestamp).toBe(T);
      expect((err as Error).message).not.toContain(NEW);
    }
  });

  it('defaults the clock to Date.now()', () => {
    const t = Math.floor(Date.now() / 1000);
    expect(verifyWebhookSignature(BODY, signWebhookPayload(BODY, [NEW], t), NEW)).toEqual({ timestamp: t });
  });

  it('is re-exported by the package entry point content-firewall/webhooks', () => {
    expect(client.verifyWebhookSignature).toBe(verifyWebhookSignature);
    expect(client.signWebhookPayload).toBe(signWebhookPayload);
    expect(client.WebhookSignatureError).toBe(WebhookSignatureError);
    expect(client.InvalidWebhookSignatureError).toBe(InvalidWebhookSignatureError);
    expect(client.WebhookTimestampExpiredError).toBe(WebhookTimestampExpiredError);
  });
});

describe('properties', () => {
  const body = fc.uint8Array({ minLength: 1, maxLength: 512 });
  const secret = fc.string({ minLength: 1, maxLength: 64 });
  const timestamp = fc.integer({ min: 1, max: 4_102_444_800 });

  it('sign then verify holds for any body and secrets, and any single-byte change fails', () => {
    fc.assert(
      fc.property(
        body,
        fc.uniqueArray(secret, { minLength: 1, maxLength: 3 }),
        timestamp,
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (b, secrets, t, at, xor) => {
          const header = signWebhookPayload(b, secrets, t);
          for (const s of secrets) {
            expect(verifyWebhookSignature(b, header, s, { now: t * 1000 })).toEqual({ timestamp: t });
          }
          const changed = Uint8Array.from(b);
          const i = at % changed.length;
          changed[i] = changed[i]! ^ xor;
          expect(outcome(() => verifyWebhookSignature(changed, header, secrets, { now: t * 1000 }))).toBe(
            'invalid_signature',
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});

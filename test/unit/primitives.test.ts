import { describe, expect, it } from 'vitest';
import { API_VERSIONS, isCalendarDate, resolveApiVersion } from '../../api/versions.ts';
import { randomBase62 } from '../../lib/crypto.ts';
import { isId, newId, parseIdParam } from '../../lib/ids.ts';
import { hasScope, SCOPES } from '../../lib/scopes.ts';
import { looksLikeSecret, mintSecret } from '../../services/api-key-secrets.ts';
import { slugify } from '../../services/organizations.ts';

describe('ids', () => {
  it('are prefix + 26 Crockford base32 and sort by creation', () => {
    const a = newId('apiKey');
    const b = newId('apiKey');
    expect(a).toMatch(/^ak_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(a < b).toBe(true);
    expect(isId('apiKey', a)).toBe(true);
    expect(isId('apiKey', a.toLowerCase())).toBe(false);
    expect(isId('scan', a)).toBe(false);
  });
  it('path parameters may omit an optional prefix', () => {
    const id = newId('scan');
    expect(parseIdParam('scan', id.slice(5), true)).toBe(id);
    expect(parseIdParam('scan', id.slice(5))).toBeNull();
    expect(parseIdParam('scan', 'scan_ILOU0000000000000000000000', true)).toBeNull();
  });
});

describe('API versions', () => {
  it.each([
    ['2026-11-01', true],
    ['2024-02-29', true],
    ['2023-02-29', false],
    ['2026-1-01', false],
    ['2026-11-01T00:00:00Z', false],
  ])('isCalendarDate(%s) = %s', (v, ok) => {
    expect(isCalendarDate(v)).toBe(ok);
  });
  it('resolves a later date to the newest revision on or before it', () => {
    expect(resolveApiVersion('2099-01-01')).toBe(API_VERSIONS.at(-1));
    expect(resolveApiVersion('2000-01-01')).toBeNull();
  });
});

describe('scopes', () => {
  it('has the 17 scopes of the spec, and admin implies all', () => {
    expect(SCOPES).toHaveLength(17);
    for (const s of SCOPES) expect(hasScope(['admin'], s)).toBe(true);
    expect(hasScope(['scans:read'], 'scans:write')).toBe(false);
  });
});

describe('secrets', () => {
  it('are 32 random bytes of base62 after the environment prefix', () => {
    const s = mintSecret('live');
    expect(s).toMatch(/^sk_live_[0-9A-Za-z]{43}$/);
    expect(looksLikeSecret(s)).toBe(true);
    expect(looksLikeSecret(`${s}x`)).toBe(false);
    expect(new Set(Array.from({ length: 200 }, () => randomBase62(32))).size).toBe(200);
  });
  it('use every base62 symbol roughly evenly', () => {
    const counts = new Map<string, number>();
    for (const ch of randomBase62(62 * 400)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(62);
    for (const n of counts.values()) expect(n).toBeGreaterThan(250);
  });
});

describe('slugify', () => {
  it.each([
    ['Acme Corp.', 'acme-corp'],
    ['Ünïcödé  Ltd', 'unicode-ltd'],
    ['!!!', 'org'],
    ['  a  ', 'a'],
  ])('%s → %s', (a, b) => {
    expect(slugify(a)).toBe(b);
  });
});

describe('identifier minting', () => {
  it('monotonic ids strictly increase, even when the clock repeats or steps back', async () => {
    const { newId, isId } = await import('../../lib/ids.ts');
    const t = Date.parse('2026-05-01T00:00:00Z');
    const ids = [newId('scan', t), newId('scan', t), newId('scan', t - 5000), newId('scan', t + 1)];
    for (const id of ids) expect(isId('scan', id)).toBe(true);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(4);
  });
  it('timed ids carry exactly their time, with a random part', async () => {
    const { newTimedId } = await import('../../lib/ids.ts');
    const { decodeTime } = await import('ulid');
    const t = Date.parse('2026-04-02T03:04:05.678Z');
    const a = newTimedId('scan', t);
    const b = newTimedId('scan', t);
    expect(decodeTime(a.slice(5))).toBe(t);
    expect(a).not.toBe(b);
  });
  it('timed ids of one kind minted in a row for the same millisecond increase', async () => {
    const { newTimedId } = await import('../../lib/ids.ts');
    const { decodeTime } = await import('ulid');
    const t = Date.parse('2026-04-02T03:04:05.678Z');
    for (let round = 0; round < 50; round++) {
      const ids = [newTimedId('audit', t), newTimedId('audit', t), newTimedId('audit', t)];
      expect([...ids].sort()).toEqual(ids);
      expect(new Set(ids).size).toBe(3);
      for (const id of ids) expect(decodeTime(id.slice(4))).toBe(t);
      newTimedId('audit', t + 1);
    }
  });
});

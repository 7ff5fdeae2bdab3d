import { describe, expect, it } from 'vitest';
import { CursorCodec } from '../../lib/cursor.ts';

const codec = new CursorCodec(Buffer.alloc(32, 7));

describe('CursorCodec', () => {
  it('round-trips a payload', () => {
    const c = codec.encode('api_keys', 'org_A', { before: 'ak_X' });
    expect(codec.decode('api_keys', 'org_A', c)).toEqual({ before: 'ak_X' });
  });
  it('rejects any edited character', () => {
    const c = codec.encode('api_keys', 'org_A', { before: 'ak_X' });
    for (let i = 0; i < c.length; i++) {
      if (c[i] === '.') continue;
      const edited = c.slice(0, i) + (c[i] === 'A' ? 'B' : 'A') + c.slice(i + 1);
      expect(codec.decode('api_keys', 'org_A', edited)).toBeNull();
    }
  });
  it('rejects a cursor of another list, organization or key', () => {
    const c = codec.encode('api_keys', 'org_A', { before: 'ak_X' });
    expect(codec.decode('scans', 'org_A', c)).toBeNull();
    expect(codec.decode('api_keys', 'org_B', c)).toBeNull();
    expect(new CursorCodec(Buffer.alloc(32, 8)).decode('api_keys', 'org_A', c)).toBeNull();
  });
  it.each(['', '.', 'abc', 'a.b', 'x'.repeat(3000)])('rejects garbage %j', (g) => {
    expect(codec.decode('api_keys', 'org_A', g)).toBeNull();
  });
});

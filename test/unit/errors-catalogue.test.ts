import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATALOGUE } from '../../lib/errors.ts';

describe('the error catalogue', () => {
  const doc = readFileSync(path.resolve(import.meta.dirname, '../../docs/errors.md'), 'utf8');
  it.each(CATALOGUE.map((e) => [e.code, e.status] as const))('docs/errors.md lists %s (%i)', (code, status) => {
    expect(doc).toMatch(new RegExp(`\\|\\s*${status}\\s*\\|\\s*\`${code.replace(/[.<>]/g, '\\$&')}\``));
  });
  it('codes are unique and dot-namespaced', () => {
    const codes = CATALOGUE.map((e) => e.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const c of codes) expect(c).toMatch(/^[a-z_<>]+(\.[a-z_]+)+$/);
  });
});

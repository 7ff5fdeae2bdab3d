/**
 * The parts of the layout that imports cannot show (the import rules themselves are
 * .dependency-cruiser.cjs, run by `npm run lint:deps`): models/ holds artifacts only, config.ts is
 * the one source file at the root, SQL is sent from store/ only, and no code file (tests included)
 * grows past the size where it wants splitting.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
  cwd: ROOT,
  encoding: 'utf8',
})
  .split('\n')
  .filter(Boolean);
const isCode = (f: string) => /\.(ts|mts|cts|js|mjs|cjs|tsx)$/.test(f);
// Lines after prettier; STYLE.md: "a file past ~400 lines is asking to be split along a seam".
const MAX_LINES = 400;

describe('layout', () => {
  it('models/ holds artifacts only (serve-time code is inference/, training code training/)', () => {
    expect(files.filter((f) => f.startsWith('models/') && isCode(f))).toEqual([]);
  });

  it('config.ts is the only source file at the root (besides tool configuration)', () => {
    const tools = new Set(['eslint.config.js', '.dependency-cruiser.cjs', 'vitest.config.ts']);
    expect(files.filter((f) => !f.includes('/') && isCode(f) && !tools.has(f))).toEqual(['config.ts']);
  });

  it('only store/ sends SQL (services call its repositories; api/ calls services)', () => {
    const serving = /^(server|api|jobs|services|workers|engine|inference|lib|client)\//;
    const querying = files.filter(
      (f) => serving.test(f) && isCode(f) && /\.query(<[^>]*>)?\(/.test(readFileSync(path.join(ROOT, f), 'utf8')),
    );
    expect(querying).toEqual([]);
  });

  it(`no code file (tests included) is longer than ${MAX_LINES} lines`, () => {
    const long = files
      .filter((f) => isCode(f))
      .map((f) => ({ f, lines: readFileSync(path.join(ROOT, f), 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > MAX_LINES);
    expect(long).toEqual([]);
  });
});

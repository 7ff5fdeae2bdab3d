/**
 * The repository's root folder, where the files the service reads at run time lie (models/,
 * store/migrations/, the lexicons, dist/dashboard/, package.json). The same code runs from the
 * TypeScript sources (tests, `npm run dev`) and from the compiled bundle under dist/app/ (`npm start`,
 * docs/decisions/0012-compiled-build.md), whose files sit at another depth: so the root is found by
 * walking up from this module to the first package.json, not by a fixed `../..`.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

/** Absolute path of the repository's root (the folder of its package.json). */
export const PACKAGE_ROOT: string = findRoot(path.dirname(fileURLToPath(import.meta.url)));

/** Absolute path of `relative` (slash-separated) under the repository's root. */
export const fromRoot = (relative: string): string => path.join(PACKAGE_ROOT, ...relative.split('/'));

/**
 * tsx compiles each TypeScript file to one line (esbuild, minifyWhitespace), so a CPU profile of the
 * service places every frame of ours on line 1. tsx keeps each compiled file with its source map in
 * its cache folder (os.tmpdir()/tsx-<uid>); this reads them back and rewrites the frames' positions
 * to the TypeScript source's, so a flame graph can say `createScan services/scans.ts:87`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CpuProfile, ProfileNode } from './cpu-profile.ts';

interface Compiled {
  code: string;
  /** Line 0's segments: [generated column, source line (0-based)], ascending. */
  segments: Array<[number, number]>;
  mtimeMs: number;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** The first generated line's mappings of a source map (the only line tsx writes). */
export function firstLineSegments(mappings: string): Array<[number, number]> {
  const line = mappings.split(';')[0] ?? '';
  const out: Array<[number, number]> = [];
  let col = 0;
  let srcLine = 0;
  for (const seg of line.split(',')) {
    if (!seg) continue;
    const fields: number[] = [];
    let value = 0;
    let shift = 0;
    for (const ch of seg) {
      const digit = B64.indexOf(ch);
      value += (digit & 31) << shift;
      if (digit & 32) shift += 5;
      else {
        fields.push(value & 1 ? -(value >>> 1) : value >>> 1);
        value = 0;
        shift = 0;
      }
    }
    col += fields[0] ?? 0;
    if (fields.length >= 4) {
      srcLine += fields[2]!;
      out.push([col, srcLine]);
    }
  }
  return out;
}

/** The source line (0-based) of generated column `col`: the last segment at or before it. */
function sourceLine(segments: ReadonlyArray<[number, number]>, col: number): number | null {
  let lo = 0;
  let hi = segments.length - 1;
  let found: number | null = null;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (segments[mid]![0] <= col) {
      found = segments[mid]![1];
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

function readCache(dir: string): Map<string, Compiled[]> {
  const bySource = new Map<string, Compiled[]>();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return bySource;
  }
  for (const name of names) {
    const file = path.join(dir, name);
    try {
      const entry = JSON.parse(readFileSync(file, 'utf8')) as {
        code?: string;
        map?: string | { sources?: string[]; mappings?: string };
      };
      const map =
        typeof entry.map === 'string'
          ? (JSON.parse(entry.map) as { sources?: string[]; mappings?: string })
          : entry.map;
      if (!entry.code || map?.sources?.length !== 1 || !map.mappings) continue;
      const list = bySource.get(map.sources[0]!) ?? [];
      list.push({ code: entry.code, segments: firstLineSegments(map.mappings), mtimeMs: statSync(file).mtimeMs });
      bySource.set(map.sources[0]!, list);
    } catch {
      // not a compiled module of tsx's (or being written): skip it
    }
  }
  return bySource;
}

/**
 * Which compiled version of a file the profile ran: the one at whose columns the most named frames
 * find their names; the newest breaks ties (tsx keeps every version it compiled).
 */
function pickVersion(versions: readonly Compiled[], frames: readonly ProfileNode[]): Compiled {
  const score = (c: Compiled) =>
    frames.filter((n) => {
      const name = n.callFrame.functionName;
      const at = n.callFrame.columnNumber ?? 0;
      return name && c.code.slice(Math.max(0, at - name.length - 12), at + name.length + 12).includes(name);
    }).length;
  return [...versions].sort((a, b) => score(b) - score(a) || b.mtimeMs - a.mtimeMs)[0]!;
}

/**
 * A copy of `profile` whose frames in tsx-compiled files carry their TypeScript line (column 0); frames
 * it cannot place keep theirs. `cacheDir`: tsx's cache (default: os.tmpdir()/tsx-<uid>).
 */
export function withSourceLines(profile: CpuProfile, cacheDir?: string): CpuProfile {
  const dir = cacheDir ?? path.join(tmpdir(), `tsx-${process.getuid?.() ?? ''}`);
  const compiled = readCache(dir);
  if (!compiled.size) return profile;
  const byFile = new Map<string, ProfileNode[]>();
  for (const n of profile.nodes) {
    const url = n.callFrame.url;
    if (!url.startsWith('file://') || n.callFrame.lineNumber !== 0 || !/\.[cm]?tsx?$/.test(url)) continue;
    const file = decodeURIComponent(url.slice('file://'.length));
    byFile.set(file, [...(byFile.get(file) ?? []), n]);
  }
  const lines = new Map<number, number>();
  for (const [file, frames] of byFile) {
    const versions = compiled.get(file);
    if (!versions) continue;
    const version = pickVersion(versions, frames);
    for (const n of frames) {
      const line = sourceLine(version.segments, n.callFrame.columnNumber ?? 0);
      if (line !== null) lines.set(n.id, line);
    }
  }
  return {
    ...profile,
    nodes: profile.nodes.map((n) =>
      lines.has(n.id) ? { ...n, callFrame: { ...n.callFrame, lineNumber: lines.get(n.id)!, columnNumber: 0 } } : n,
    ),
  };
}

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { transformSync } from 'esbuild';
import { describe, expect, it } from 'vitest';
import {
  areaOf,
  buildTree,
  busiestWindow,
  selfTables,
  shortUrl,
  type CpuProfile,
} from '../../benchmarks/cpu-profile.ts';
import { renderSvg } from '../../benchmarks/flamegraph-svg.ts';
import { firstLineSegments, withSourceLines } from '../../benchmarks/tsx-source-lines.ts';

const ROOT = '/srv/app';
const frame = (functionName: string, url = '', lineNumber = 0) => ({ functionName, url, lineNumber, columnNumber: 0 });

/**
 * (root) → handle (api/route.ts:10) → writev, next (router); (idle); (garbage collector).
 * Seven samples of 100 µs each: handle 2, writev 2, next 1, idle 1, GC 1.
 */
const PROFILE: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)'), children: [2, 3, 6] },
    { id: 2, callFrame: frame('(idle)') },
    { id: 3, callFrame: frame('handle', `file://${ROOT}/api/route.ts`, 9), children: [4, 5] },
    { id: 4, callFrame: frame('writev') },
    { id: 5, callFrame: frame('next', `file://${ROOT}/node_modules/router/index.js`, 188) },
    { id: 6, callFrame: frame('(garbage collector)') },
  ],
  startTime: 0,
  endTime: 800,
  samples: [3, 4, 4, 5, 2, 6, 3],
  timeDeltas: [100, 100, 100, 100, 100, 100, 100],
};

describe('flame graph renderer (benchmarks/flamegraph.ts)', () => {
  it('names areas by folder, package and V8 pseudo-frame', () => {
    expect(areaOf(frame('f', `file://${ROOT}/services/scans.ts`), ROOT)).toBe('services/');
    expect(areaOf(frame('f', `file://${ROOT}/node_modules/pg-protocol/dist/parser.js`), ROOT)).toBe('pg');
    expect(areaOf(frame('f', `file://${ROOT}/node_modules/body-parser/lib/read.js`), ROOT)).toBe('body parsing');
    expect(areaOf(frame('f', 'node:internal/stream_base_commons'), ROOT)).toBe('node core (http, net, streams)');
    expect(areaOf(frame('writev'), ROOT)).toBe('syscalls/native');
    expect(areaOf(frame('parse'), ROOT)).toBe('body parsing');
    expect(areaOf(frame('(idle)'), ROOT)).toBe('idle');
    expect(shortUrl(`file://${ROOT}/node_modules/@scope/pkg/x.js`, ROOT)).toBe('@scope/pkg/x.js');
  });

  it('tables self time by function and area, shares of the busy time', () => {
    const { functions, areas, busyMs } = selfTables(PROFILE, ROOT);
    expect(busyMs).toBeCloseTo(0.6);
    expect(functions.map((f) => [f.name, f.ms])).toEqual([
      ['handle api/route.ts:10', 0.2],
      ['writev', 0.2],
      ['next router/index.js:189', 0.1],
      ['(garbage collector)', 0.1],
    ]);
    const byArea = Object.fromEntries(areas.map((a) => [a.name, a.share]));
    expect(byArea['api/']).toBeCloseTo(1 / 3);
    expect(byArea['express/router']).toBeCloseTo(1 / 6);
    expect(byArea.idle).toBe(0);
  });

  it('builds the call tree with totals, idle left out unless asked', () => {
    const tree = buildTree(PROFILE, { root: ROOT });
    expect(tree.total).toBe(600);
    expect(tree.samples).toBe(6);
    const handle = tree.children.get('handle api/route.ts:10')!;
    expect([handle.self, handle.total]).toEqual([200, 500]);
    expect([...handle.children.keys()]).toEqual(['writev', 'next router/index.js:189']);
    expect(buildTree(PROFILE, { root: ROOT, idle: true }).total).toBe(700);
  });

  it('renders a self-contained SVG with a title, one frame group per frame and escaped tooltips', () => {
    const profile: CpuProfile = {
      ...PROFILE,
      nodes: PROFILE.nodes.map((n) => (n.id === 4 ? { ...n, callFrame: frame('a<b>&"c"') } : n)),
    };
    const svg = renderSvg(buildTree(profile, { root: ROOT }), { title: 'main thread: 0.6 ms, 6 samples' });
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain('main thread: 0.6 ms, 6 samples');
    expect(svg.match(/<g data-depth=/g)).toHaveLength(5); // all, handle, writev, next, GC
    expect(svg).toContain('<title>handle api/route.ts:10 [api/] — 0.5 ms (83.33%), self 0.2 ms, 5 samples</title>');
    expect(svg).toContain('a&lt;b&gt;&amp;&quot;c&quot;');
    expect(svg).not.toMatch(/<[^>]*<[^/]/); // no raw '<' inside a tag
    expect(svg.match(/<g /g)!.length).toBe(svg.match(/<\/g>/g)!.length);
  });

  it('keeps the busiest window of a profile', () => {
    const idleFirst: CpuProfile = {
      ...PROFILE,
      endTime: 1000,
      samples: [2, 2, 2, 2, 3, 4, 5, 3, 2, 2],
      timeDeltas: Array(10).fill(100),
    };
    const w = busiestWindow(idleFirst, 0.0003);
    expect(w.samples).toEqual([3, 4, 5, 3]);
  });
});

describe('TypeScript lines of tsx-compiled frames (benchmarks/tsx-source-lines.ts)', () => {
  const source = ['const a = 1;', '', 'export function second(x: number): number {', '  return x + a;', '}', ''].join(
    '\n',
  );
  const out = transformSync(source, { loader: 'ts', format: 'esm', minifyWhitespace: true, sourcemap: 'external' });
  const column = out.code.indexOf('function second');

  it('decodes the first generated line of a source map', () => {
    const segments = firstLineSegments(JSON.parse(out.map).mappings as string);
    const at = segments.filter(([c]) => c <= column).at(-1)!;
    expect(at[1]).toBe(2);
  });

  it('rewrites a one-line frame to its TypeScript line from a tsx cache entry', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'flame-'));
    const file = '/srv/app/services/x.ts';
    writeFileSync(
      path.join(dir, 'entry'),
      JSON.stringify({ code: out.code, map: { ...JSON.parse(out.map), sources: [file] } }),
    );
    const profile: CpuProfile = {
      nodes: [
        { id: 1, callFrame: frame('(root)'), children: [2] },
        { id: 2, callFrame: { functionName: 'second', url: `file://${file}`, lineNumber: 0, columnNumber: column } },
      ],
      startTime: 0,
      endTime: 100,
      samples: [2],
      timeDeltas: [0],
    };
    expect(withSourceLines(profile, dir).nodes[1]!.callFrame.lineNumber).toBe(2);
  });
});

/**
 * A V8 CPU profile (.cpuprofile) read for benchmarks/flamegraph.ts: self time per frame, the call
 * tree, where the time went by function and by area (Express, body parsing, our folders, pg,
 * prom-client, pino, GC, native code, idle), the busiest window, the main thread of a folder.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface CallFrame {
  functionName: string;
  url: string;
  /** 0-based, as V8 writes it. */
  lineNumber: number;
  columnNumber?: number;
}

export interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
  children?: number[];
}

/** The JSON of a .cpuprofile (Chrome DevTools protocol `Profiler.Profile`); times in microseconds. */
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export const AREAS = [
  'idle',
  'GC',
  'express/router',
  'body parsing',
  'api/',
  'services/',
  'engine/',
  'store/',
  'workers/ + piscina',
  'inference/',
  'lib/',
  'server/',
  'pg',
  'prom-client',
  'pino',
  'zod',
  'node core (http, net, streams)',
  'syscalls/native',
  'other',
] as const;
export type Area = (typeof AREAS)[number];

const PACKAGES: ReadonlyArray<[Area, readonly string[]]> = [
  ['body parsing', ['body-parser', 'raw-body', 'iconv-lite', 'content-type', 'type-is', 'media-typer', 'bytes']],
  [
    'express/router',
    // prettier-ignore
    ['express', 'router', 'finalhandler', 'send', 'path-to-regexp', 'parseurl', 'qs', 'depd', 'on-finished',
      'encodeurl', 'statuses', 'vary', 'accepts', 'negotiator', 'mime-types', 'mime-db', 'fresh', 'proxy-addr',
      'forwarded', 'ipaddr.js', 'http-errors', 'setprototypeof', 'utils-merge', 'content-disposition', 'cookie'],
  ],
  ['pg', ['pg', 'pg-protocol', 'pg-pool', 'pg-types', 'pg-connection-string', 'postgres-array', 'postgres-date']],
  ['prom-client', ['prom-client', 'tdigest', 'bintrees']],
  // prettier-ignore
  ['pino', ['pino', 'sonic-boom', 'thread-stream', 'fast-redact', 'quick-format-unescaped', 'atomic-sleep',
    'pino-std-serializers', 'safe-stable-stringify', 'on-exit-leak-free']],
  ['zod', ['zod']],
  ['workers/ + piscina', ['piscina']],
];
const PACKAGE_AREA = new Map(PACKAGES.flatMap(([area, names]) => names.map((n) => [n, area] as const)));
const OUR_FOLDERS: Record<string, Area> = {
  api: 'api/',
  services: 'services/',
  engine: 'engine/',
  store: 'store/',
  workers: 'workers/ + piscina',
  inference: 'inference/',
  lib: 'lib/',
  server: 'server/',
};

/** `url` as a short path: relative to `root`, a dependency from its package name, `node:` kept. */
export function shortUrl(url: string, root = process.cwd()): string {
  let p = url.startsWith('file://') ? decodeURIComponent(url.slice('file://'.length)) : url;
  const nm = p.lastIndexOf('/node_modules/');
  if (nm >= 0) return p.slice(nm + '/node_modules/'.length);
  if (p.startsWith(root + '/')) p = p.slice(root.length + 1);
  return p;
}

/** The area a frame's self time counts under (see AREAS). */
export function areaOf(frame: CallFrame, root = process.cwd()): Area {
  const { functionName: name, url } = frame;
  if (name === '(idle)') return 'idle';
  if (name === '(garbage collector)') return 'GC';
  if (url === '') return name === 'parse' ? 'body parsing' : 'syscalls/native'; // JSON.parse, (program), writev…
  if (url.startsWith('node:')) return 'node core (http, net, streams)';
  const short = shortUrl(url, root);
  if (url.includes('/node_modules/')) {
    const [scope, pkg] = short.split('/');
    return PACKAGE_AREA.get(scope!.startsWith('@') ? `${scope}/${pkg}` : scope!) ?? 'other';
  }
  return OUR_FOLDERS[short.split('/')[0]!] ?? 'other';
}

/** `function file:line` (line 1-based), the label of a frame. */
export function frameLabel(frame: CallFrame, root = process.cwd()): string {
  const name = frame.functionName || '(anonymous)';
  if (!frame.url) return name;
  return `${name} ${shortUrl(frame.url, root)}:${frame.lineNumber + 1}`;
}

/** Microseconds of self time per node id: each sample lasts until the next one. */
export function selfTimes(profile: CpuProfile): Map<number, number> {
  const self = new Map<number, number>();
  const { samples, timeDeltas } = profile;
  if (samples?.length && timeDeltas?.length === samples.length) {
    let at = profile.startTime;
    for (let i = 0; i < samples.length; i++) {
      at += timeDeltas[i]!;
      const next = i + 1 < samples.length ? at + timeDeltas[i + 1]! : profile.endTime;
      const id = samples[i]!;
      self.set(id, (self.get(id) ?? 0) + Math.max(0, next - at));
    }
    return self;
  }
  // No sample list: hit counts, each worth an equal share of the profile's span.
  const hits = profile.nodes.reduce((n, node) => n + (node.hitCount ?? 0), 0);
  const each = hits ? (profile.endTime - profile.startTime) / hits : 0;
  for (const node of profile.nodes) if (node.hitCount) self.set(node.id, node.hitCount * each);
  return self;
}

export interface FlameNode {
  label: string;
  area: Area;
  /** Microseconds spent in this frame itself, and in it and everything it called. */
  self: number;
  total: number;
  samples: number;
  children: Map<string, FlameNode>;
}

/** The call tree with times, frames of the same label under one parent merged; idle left out unless asked. */
export function buildTree(profile: CpuProfile, opts: { idle?: boolean; root?: string } = {}): FlameNode {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = selfTimes(profile);
  const counts = new Map<number, number>();
  for (const id of profile.samples ?? []) counts.set(id, (counts.get(id) ?? 0) + 1);
  const childIds = new Set(profile.nodes.flatMap((n) => n.children ?? []));
  const top = profile.nodes.find((n) => !childIds.has(n.id)) ?? profile.nodes[0]!;
  const tree: FlameNode = { label: 'all', area: 'other', self: 0, total: 0, samples: 0, children: new Map() };
  const visit = (node: ProfileNode, into: FlameNode): void => {
    if (!opts.idle && node.callFrame.functionName === '(idle)') return;
    const label = frameLabel(node.callFrame, opts.root);
    let out = into.children.get(label);
    if (!out) {
      const area = areaOf(node.callFrame, opts.root);
      out = { label, area, self: 0, total: 0, samples: 0, children: new Map() };
      into.children.set(label, out);
    }
    out.self += self.get(node.id) ?? 0;
    out.samples += counts.get(node.id) ?? node.hitCount ?? 0;
    for (const c of node.children ?? []) visit(byId.get(c)!, out);
  };
  for (const c of top.children ?? []) visit(byId.get(c)!, tree);
  const sum = (n: FlameNode): number => {
    n.total = n.self + [...n.children.values()].reduce((t, c) => t + sum(c), 0);
    n.samples += [...n.children.values()].reduce((t, c) => t + c.samples, 0);
    return n.total;
  };
  sum(tree);
  return tree;
}

export interface Row {
  name: string;
  area: Area;
  ms: number;
  /** Share of the busy (non-idle) time. */
  share: number;
}

/** Self time by function (label) and by area, largest first; shares of the busy time. */
export function selfTables(profile: CpuProfile, root?: string): { functions: Row[]; areas: Row[]; busyMs: number } {
  const self = selfTimes(profile);
  const byFunction = new Map<string, Row>();
  const byArea = new Map<Area, Row>();
  let busy = 0;
  for (const node of profile.nodes) {
    const us = self.get(node.id);
    if (!us) continue;
    const area = areaOf(node.callFrame, root);
    if (area !== 'idle') busy += us;
    const name = frameLabel(node.callFrame, root);
    const f = byFunction.get(name) ?? { name, area, ms: 0, share: 0 };
    f.ms += us / 1000;
    byFunction.set(name, f);
    const a = byArea.get(area) ?? { name: area, area, ms: 0, share: 0 };
    a.ms += us / 1000;
    byArea.set(area, a);
  }
  const finish = (rows: Iterable<Row>) =>
    [...rows]
      .map((r) => ({ ...r, share: r.area === 'idle' || !busy ? 0 : (r.ms * 1000) / busy }))
      .sort((a, b) => b.ms - a.ms);
  return {
    functions: finish(byFunction.values()).filter((r) => r.area !== 'idle'),
    areas: finish(byArea.values()),
    busyMs: busy / 1000,
  };
}

/**
 * The `seconds` of the profile with the most busy (non-idle) time: the load phase of a benchmark run,
 * without the service's start-up (module compilation) or the idle time around it.
 */
export function busiestWindow(profile: CpuProfile, seconds: number): CpuProfile {
  const { samples, timeDeltas } = profile;
  if (!samples?.length || timeDeltas?.length !== samples.length) return profile;
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
  const at: number[] = [];
  let t = profile.startTime;
  for (const d of timeDeltas) at.push((t += d));
  const span = seconds * 1e6;
  let best = { from: 0, to: samples.length, busy: -1 };
  let busy = 0;
  let from = 0;
  for (let to = 0; to < samples.length; to++) {
    if (!idle.has(samples[to]!)) busy++;
    while (at[to]! - at[from]! > span) if (!idle.has(samples[from++]!)) busy--;
    if (busy > best.busy) best = { from, to: to + 1, busy };
  }
  return {
    ...profile,
    startTime: at[best.from]! - timeDeltas[best.from]!,
    endTime: best.to < samples.length ? at[best.to]! : profile.endTime,
    samples: samples.slice(best.from, best.to),
    timeDeltas: timeDeltas.slice(best.from, best.to),
  };
}

/** The profile in a folder that spent the most self time in Express: the service's main thread. */
export function pickMainThread(dir: string): string {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  if (!files.length) throw new Error(`no .cpuprofile in ${dir}`);
  const express = (f: string) =>
    selfTables(JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as CpuProfile).areas.find(
      (a) => a.area === 'express/router',
    )?.ms ?? 0;
  return path.join(dir, files.map((f) => ({ f, ms: express(f) })).sort((a, b) => b.ms - a.ms)[0]!.f);
}

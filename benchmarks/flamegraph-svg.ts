/**
 * The SVG of benchmarks/flamegraph.ts: a flame graph drawn by hand (rects, text, `<title>` tooltips),
 * self-contained, colours by area with a legend.
 */
import { AREAS, type Area, type FlameNode } from './cpu-profile.ts';

const HUES: Record<Area, number> = {
  idle: 0,
  GC: 0,
  'express/router': 30,
  'body parsing': 45,
  'api/': 200,
  'services/': 215,
  'engine/': 260,
  'store/': 180,
  'workers/ + piscina': 285,
  'inference/': 300,
  'lib/': 230,
  'server/': 245,
  pg: 160,
  'prom-client': 340,
  pino: 320,
  zod: 90,
  'node core (http, net, streams)': 55,
  'syscalls/native': 15,
  other: 0,
};

function color(area: Area, label: string): string {
  if (area === 'idle' || area === 'other') return 'hsl(0,0%,78%)';
  let h = 0;
  for (let i = 0; i < label.length; i++) h = (h * 31 + label.charCodeAt(i)) >>> 0;
  return `hsl(${HUES[area]},${area === 'GC' ? 0 : 70}%,${62 + (h % 14)}%)`;
}

const escapeXml = (s: string) =>
  s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);

const ms = (us: number) => (us / 1000).toFixed(us >= 100_000 ? 0 : 1);

/**
 * The flame graph: callers below their callees, widths by time, a `<title>` tooltip per frame
 * (label, area, total and self time, share), colours by area with a legend. Frames narrower than
 * `minPx` are left out with what they called.
 */
export function renderSvg(tree: FlameNode, opts: { title: string; width?: number; minPx?: number }): string {
  const width = opts.width ?? 1200;
  const minPx = opts.minPx ?? 0.3;
  const rowH = 17;
  const pad = 10;
  const scale = tree.total ? (width - 2 * pad) / tree.total : 0;
  const frames: string[] = [];
  const usedAreas = new Set<Area>();
  let maxDepth = 0;
  const place = (n: FlameNode, x: number, depth: number): void => {
    maxDepth = Math.max(maxDepth, depth);
    frames.push(frame(n, x, depth));
    let cx = x;
    for (const c of [...n.children.values()].sort((a, b) => a.label.localeCompare(b.label))) {
      if (c.total * scale >= minPx) place(c, cx, depth + 1);
      cx += c.total * scale;
    }
  };
  const frame = (n: FlameNode, x: number, depth: number): string => {
    if (depth > 0) usedAreas.add(n.area);
    const w = n.total * scale;
    const share = tree.total ? ((100 * n.total) / tree.total).toFixed(2) : '0';
    const tip = `${n.label} [${n.area}] — ${ms(n.total)} ms (${share}%), self ${ms(n.self)} ms, ${n.samples} samples`;
    const chars = Math.floor((w - 6) / 6.6);
    const text = chars < 3 ? '' : n.label.length <= chars ? n.label : `${n.label.slice(0, chars - 1)}…`;
    return (
      `<g data-depth="${depth}"><title>${escapeXml(tip)}</title>` +
      `<rect x="${x.toFixed(2)}" y="DEPTH${depth}" width="${Math.max(w - 0.5, 0.1).toFixed(2)}" height="${rowH - 1}" rx="1" fill="${depth ? color(n.area, n.label) : 'hsl(0,0%,70%)'}"/>` +
      (text ? `<text x="${(x + 3).toFixed(2)}" y="TEXT${depth}">${escapeXml(text)}</text>` : '') +
      '</g>'
    );
  };
  place(tree, pad, 0);
  const header = 44;
  const legendRows = Math.ceil(usedAreas.size / 5);
  const graphTop = header;
  const height = graphTop + (maxDepth + 1) * rowH + 16 + legendRows * 18 + pad;
  const yOf = (depth: number) => graphTop + (maxDepth - depth) * rowH;
  const body = frames
    .join('\n')
    .replace(/y="DEPTH(\d+)"/g, (_, d: string) => `y="${yOf(Number(d))}"`)
    .replace(/y="TEXT(\d+)"/g, (_, d: string) => `y="${yOf(Number(d)) + 12}"`);
  const legendTop = graphTop + (maxDepth + 1) * rowH + 16;
  const legend = [...usedAreas]
    .sort((a, b) => AREAS.indexOf(a) - AREAS.indexOf(b))
    .map((a, i) => {
      const x = pad + (i % 5) * 236;
      const y = legendTop + Math.floor(i / 5) * 18;
      return `<rect x="${x}" y="${y}" width="12" height="12" fill="${color(a, '')}"/><text x="${x + 16}" y="${y + 10}">${escapeXml(a)}</text>`;
    })
    .join('\n');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Menlo, Consolas, monospace" font-size="11">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${width / 2}" y="20" font-size="15" text-anchor="middle">${escapeXml(opts.title)}</text>`,
    `<text x="${width / 2}" y="36" fill="#555" text-anchor="middle">callers below callees; width = CPU time; hover a frame for its times</text>`,
    body,
    legend,
    '</svg>',
    '',
  ].join('\n');
}

/**
 * A V8 CPU profile (.cpuprofile, what `npm run bench -- --profile DIR` writes per thread) as a
 * self-contained SVG flame graph, and where its time went: the functions and the areas (Express,
 * body parsing, our folders, pg, prom-client, pino, GC, native code, idle) by self time.
 *
 *   npm run flamegraph -- <file.cpuprofile | DIR> [--out flame.svg] [--top N] [--title T] [--idle] [--window S]
 *
 * Given a folder, it takes the profile that spent the most time in Express: the service's main thread.
 * `--window S`: only the busiest S seconds (the load, without start-up). `--idle`: draw idle time too.
 * Frames of tsx-compiled files get their TypeScript line from tsx's cache (benchmarks/tsx-source-lines.ts).
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildTree, busiestWindow, pickMainThread, selfTables, type CpuProfile, type Row } from './cpu-profile.ts';
import { renderSvg } from './flamegraph-svg.ts';
import { withSourceLines } from './tsx-source-lines.ts';

function table(rows: readonly Row[], busyMs: number): string {
  const lines = rows.map(
    (r) =>
      `${r.ms.toFixed(1).padStart(9)}  ${r.area === 'idle' ? '     —' : `${(100 * r.share).toFixed(1).padStart(5)}%`}  ${r.name.length > 110 ? `${r.name.slice(0, 109)}…` : r.name}`,
  );
  return [`       ms  % busy  (busy ${busyMs.toFixed(0)} ms)`, ...lines].join('\n');
}

function main(): void {
  const usage =
    'usage: npm run flamegraph -- <file.cpuprofile | DIR> [--out flame.svg] [--top N] [--title T] [--idle] [--window S]';
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        out: { type: 'string' },
        top: { type: 'string', default: '25' },
        title: { type: 'string' },
        idle: { type: 'boolean', default: false },
        window: { type: 'string' },
        help: { type: 'boolean', default: false },
      },
    });
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${usage}\n`);
    process.exit(2);
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length !== 1) {
    process.stderr.write(`${usage}\n`);
    process.exit(values.help ? 0 : 2);
  }
  const input = statSync(positionals[0]!).isDirectory() ? pickMainThread(positionals[0]!) : positionals[0]!;
  const whole = withSourceLines(JSON.parse(readFileSync(input, 'utf8')) as CpuProfile);
  const profile = values.window ? busiestWindow(whole, Number(values.window)) : whole;
  const { functions, areas, busyMs } = selfTables(profile);
  const top = Number(values.top);
  const wallMs = (profile.endTime - profile.startTime) / 1000;
  process.stdout.write(
    `${input}: ${wallMs.toFixed(0)} ms profiled, ${busyMs.toFixed(0)} ms busy, ${profile.samples?.length ?? 0} samples\n\n`,
  );
  process.stdout.write(`self time by area\n${table(areas, busyMs)}\n\n`);
  process.stdout.write(`self time by function (top ${top})\n${table(functions.slice(0, top), busyMs)}\n`);
  const out = values.out ?? input.replace(/\.cpuprofile$/, '') + '.svg';
  const tree = buildTree(profile, { idle: values.idle });
  const ms = (us: number) => (us / 1000).toFixed(us >= 100_000 ? 0 : 1);
  const title =
    values.title ??
    `${path.basename(input)}: ${ms(tree.total)} ms ${values.idle ? 'profiled' : 'busy (idle left out)'}, ${tree.samples} samples`;
  writeFileSync(out, renderSvg(tree, { title }));
  process.stdout.write(`\nflame graph: ${out}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) main();

/**
 * Latency of the USE-lite sentence encoder (inference/sentence-encoder.ts) on one thread, fp32 and int8
 * (ENCODER_PRECISION; docs/decisions/0009-encoder-int8.md): `node --import tsx benchmarks/sentence-encoder.ts`
 * (options: --reps N, default 50). Reports load time (read + sha256 + graph build + session) per precision,
 * the tokenizer per 128-token window, and min/p50/p90/p99 of `embedIds` for 1 window of 128 tokens, 2, 4
 * and 16 windows, 16 short (16-token) rows and a short text, fp32 and int8 runs interleaved, with the
 * p50 ratio. fp32 runs up to 16 rows per session.run as served; int8 runs one row per run (as served).
 * Generated text only. On a busy machine `min` is the closest to the idle cost.
 */
import { syntheticInjections } from '../training/data/synthetic-injections.ts';
import { injectionHardNegativesEval } from '../training/data/hard-negatives.ts';
import { loadSentenceEncoder, type SentenceEncoder } from '../inference/sentence-encoder.ts';
import { tokenWindows } from '../inference/use-lite-tokenizer.ts';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

function percentiles(samples: number[]): { min: number; p50: number; p90: number; p99: number } {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => s[Math.min(s.length - 1, Math.floor(s.length * q))] as number;
  return { min: s[0] as number, p50: at(0.5), p90: at(0.9), p99: at(0.99) };
}

async function timeMs(fn: () => Promise<unknown>, reps: number, warm = 5): Promise<number[]> {
  for (let i = 0; i < warm; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t = process.hrtime.bigint();
    await fn();
    out.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return out;
}

/** Runs of `fns` interleaved (one of each per repetition), so load on the machine hits them alike. */
async function timeEach(fns: (() => Promise<unknown>)[], reps: number, warm = 5): Promise<number[][]> {
  for (let i = 0; i < warm; i++) for (const fn of fns) await fn();
  const out = fns.map((): number[] => []);
  for (let i = 0; i < reps; i++)
    for (const [k, fn] of fns.entries()) {
      const t = process.hrtime.bigint();
      await fn();
      out[k]!.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  return out;
}

async function load(precision: 'fp32' | 'int8'): Promise<[SentenceEncoder, number]> {
  const t0 = process.hrtime.bigint();
  const encoder = await loadSentenceEncoder({ batchRows: 16, precision });
  return [encoder, Number(process.hrtime.bigint() - t0) / 1e6];
}

const fmt = (x: number): string => x.toFixed(2);

async function main(): Promise<void> {
  const reps = arg('reps', 50);
  const [encoder, loadMs] = await load('fp32');
  const [int8, loadInt8Ms] = await load('int8');

  const text = [...syntheticInjections(60, 11), ...injectionHardNegativesEval(60, 12).map((h) => h.text)].join(' ');
  const ids = encoder.tokenize(text);
  const windows = tokenWindows(ids, 128).filter((w) => w.length === 128);
  if (windows.length < 16) throw new Error(`only ${windows.length} full windows of generated text`);
  const chars = Math.round((text.length * 128) / ids.length);
  console.log(
    `USE-lite sentence encoder, 1 intra-op thread, ${reps} runs each (load fp32 ${fmt(loadMs)} ms, int8 ${fmt(loadInt8Ms)} ms)`,
  );
  console.log(`generated text: ${ids.length} tokens, ~${chars} characters per 128-token window`);

  const slice = text.slice(0, chars);
  const tok = percentiles(await timeMs(() => Promise.resolve(encoder.tokenize(slice)), reps));
  console.log(`tokenize one window:      p50 ${fmt(tok.p50)} ms  p90 ${fmt(tok.p90)} ms  p99 ${fmt(tok.p99)} ms`);
  const cases: [string, number[][]][] = [
    ['1 window × 128 tokens', windows.slice(0, 1)],
    ['2 windows (256 tokens)', windows.slice(0, 2)],
    ['4 windows (512 tokens)', windows.slice(0, 4)],
    ['16 windows (2048 tokens)', windows.slice(0, 16)],
    ['16 short rows (16 tokens)', windows.slice(0, 16).map((w) => w.slice(0, 16))],
    ['1 short text (16 tokens)', [ids.slice(0, 16)]],
  ];
  for (const [name, rows] of cases) {
    const [fp, q] = (await timeEach([() => encoder.embedIds(rows), () => int8.embedIds(rows)], reps)).map(percentiles);
    for (const [label, p] of [
      ['fp32', fp],
      ['int8', q],
    ] as const) {
      const per = rows.length > 1 ? `  (${fmt(p!.p50 / rows.length)} ms per row)` : '';
      console.log(
        `${name.padEnd(26)} ${label} min ${fmt(p!.min)} ms  p50 ${fmt(p!.p50)} ms  p90 ${fmt(p!.p90)} ms  p99 ${fmt(p!.p99)} ms${per}`,
      );
    }
    console.log(
      `${''.padEnd(26)} int8 speed-up: p50 ${(fp!.p50 / q!.p50).toFixed(2)}×  min ${(fp!.min / q!.min).toFixed(2)}×`,
    );
  }
  await encoder.release();
  await int8.release();
}

await main();

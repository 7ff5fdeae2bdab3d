/**
 * `--repeat N`: the scenarios run in N rounds, and what each round measured is also summarised as the
 * median over the rounds (pure functions, unit-tested).
 */
import type { Ratio, ScalingRow, TargetCheck } from './report-html.ts';

/** One round's check of one target. */
export interface Check {
  name: string;
  /** e.g. `≥ 0.70`, `≤ 25 ms` */
  target: string;
  value: number;
  /** Appended to the value when shown, e.g. ` ms`. */
  unit: string;
  met: boolean;
}

export const round3 = (n: number) => Math.round(n * 1000) / 1000;

/** What a target is checked against: one measured service run and its ratios to the same round's two echoes. */
export interface TargetRun {
  scenario: string;
  tier: string | null;
  cluster: number | null;
  connections: number;
  body_chars: number;
  /** Its req/s over the bare echo's. */
  vs_echo: number;
  /** Its req/s over the durable echo's (durable-echo.ts). */
  vs_durable_echo: number;
  p95_ms: number;
  p99_ms: number;
}

/**
 * The targets for one run (none for runs they do not cover). Issue 41: the standard load on tier fast
 * at 50 connections ≥ 0.35 of the bare echo and ≥ 0.60 of the durable echo with p99 ≤ 50 ms; the
 * realistic mix on tier auto at 50 connections ≥ 0.20 of the bare echo. Issue 25: one
 * 30,000-character document on tier auto p95 ≤ 150 ms at one connection (other connection counts are
 * reported without a target).
 */
export function targetChecks(r: TargetRun): Check[] {
  if (r.cluster !== null) return [];
  const check = (name: string, target: string, value: number, unit: string, met: boolean): Check => ({
    name,
    target,
    value,
    unit,
    met,
  });
  if (r.scenario === 'standard' && r.tier === 'fast' && r.body_chars === 1_000 && r.connections === 50)
    return [
      check('standard, tier fast: throughput vs echo', '≥ 0.35', r.vs_echo, '', r.vs_echo >= 0.35),
      check(
        'standard, tier fast: throughput vs durable echo',
        '≥ 0.60',
        r.vs_durable_echo,
        '',
        r.vs_durable_echo >= 0.6,
      ),
      check('standard, tier fast: p99', '≤ 50 ms', r.p99_ms, ' ms', r.p99_ms <= 50),
    ];
  if (r.scenario === 'mix' && r.tier === 'auto' && r.connections === 50)
    return [check('mix, tier auto: throughput vs echo', '≥ 0.20', r.vs_echo, '', r.vs_echo >= 0.2)];
  if (r.scenario === 'document' && r.tier === 'auto' && r.body_chars === 30_000 && r.connections === 1)
    return [
      check('document (30000 chars), tier auto, 1 connection: p95', '≤ 150 ms', r.p95_ms, ' ms', r.p95_ms <= 150),
    ];
  return [];
}

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of nothing');
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : round3((s[mid - 1]! + s[mid]!) / 2);
}

/**
 * Every check as a target (numbered ` #k` when a name was checked in several rounds), then, for those
 * names, the median: met when the check at the median is (odd count) or both middle ones are (even).
 */
export function targetsOf(checks: readonly Check[]): TargetCheck[] {
  const out: TargetCheck[] = [];
  for (const name of new Set(checks.map((c) => c.name))) {
    const mine = checks.filter((c) => c.name === name);
    const several = mine.length > 1;
    mine.forEach((c, i) =>
      out.push({
        name: `${name}${several ? ` #${i + 1}` : ''}`,
        target: c.target,
        value: `${c.value}${c.unit}`,
        met: c.met,
      }),
    );
    if (!several) continue;
    const sorted = [...mine].sort((a, b) => a.value - b.value);
    const mid = sorted.length >> 1;
    const met = sorted.length % 2 ? sorted[mid]!.met : sorted[mid - 1]!.met && sorted[mid]!.met;
    out.push({
      name: `${name} (median of ${mine.length})`,
      target: mine[0]!.target,
      value: `${median(mine.map((c) => c.value))}${mine[0]!.unit}`,
      met,
    });
  }
  return out;
}

const withoutRound = (s: string) => s.replace(/ #\d+/g, '');

/** For each ratio measured in several rounds (names differing only in ` #k`), its median. */
export function medianRatios(ratios: readonly Ratio[]): Ratio[] {
  const out: Ratio[] = [];
  for (const name of new Set(ratios.map((r) => withoutRound(r.name)))) {
    const mine = ratios.filter((r) => withoutRound(r.name) === name);
    if (mine.length < 2) continue;
    out.push({
      name: `${name} (median of ${mine.length})`,
      of: withoutRound(mine[0]!.of),
      to: withoutRound(mine[0]!.to),
      value: median(mine.map((r) => r.value)),
    });
  }
  return out;
}

/** The scaling table: one round's rows as they are, several rounds' as the median per process count. */
export function medianScaling(rounds: readonly ScalingRow[][]): ScalingRow[] | null {
  if (rounds.length === 0) return null;
  if (rounds.length === 1) return rounds[0]!;
  return rounds[0]!.map((row, i) => ({
    processes: row.processes,
    req_per_s: median(rounds.map((r) => r[i]!.req_per_s)),
    efficiency: median(rounds.map((r) => r[i]!.efficiency)),
    vs_echo: median(rounds.map((r) => r[i]!.vs_echo)),
    vs_durable_echo: median(rounds.map((r) => r[i]!.vs_durable_echo)),
  }));
}

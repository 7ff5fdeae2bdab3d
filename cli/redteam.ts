/**
 * `npm run cli -- redteam run --target URL --key KEY --authorized`: the red-team self-test of a running
 * deployment (cli/redteam-runner.ts), with a progress bar on stderr (a terminal only) and a
 * summary table on stdout. It talks to the target over HTTP only: no database, no configuration.
 */
import { parseArgs } from 'node:util';
import { ATTACK_CLASSES, builtinCorpus, type AttackClass } from './redteam-corpus.ts';
import { ApiProblem } from './api-http.ts';
import { runRedteam, type ClassSummary } from './redteam-runner.ts';

export const REDTEAM_USAGE = `  redteam run --target URL --key KEY --authorized [--classes C1,C2] [--tier fast|accurate|auto]
              [--no-upload] [--training-consent] [--operator ID] [--concurrency N] [--json]
      Red-team self-test of a running deployment: records a red-team run, sends the built-in attack
      corpus through POST /v1/scans, records each probe as a labeled event, adds a finding per class
      with misses, finalizes the run and prints probes / caught / missed per class. --authorized
      attests written authorization to test the target (required). KEY needs scans:write,
      redteam:write and labeled_events:write. --classes (default all):
        ${ATTACK_CLASSES.join(', ')}`;

const options = {
  target: { type: 'string' },
  key: { type: 'string' },
  authorized: { type: 'boolean' },
  classes: { type: 'string' },
  tier: { type: 'string' },
  'no-upload': { type: 'boolean' },
  'training-consent': { type: 'boolean' },
  operator: { type: 'string' },
  concurrency: { type: 'string' },
  json: { type: 'boolean' },
} as const;

const TIERS = ['fast', 'accurate', 'auto'] as const;

function fail(message: string): number {
  process.stderr.write(`error: ${message}\n\nUsage: npm run cli -- redteam run ...\n${REDTEAM_USAGE}\n`);
  return 2;
}

/** The summary table: one row per class and a total. */
export function summaryTable(rows: ClassSummary[]): string {
  const withErrors = rows.some((r) => r.errors > 0);
  const head = ['class', 'probes', 'caught', 'missed', ...(withErrors ? ['errors'] : [])];
  const total = rows.reduce(
    (t, r) => ({
      probes: t.probes + r.probes,
      caught: t.caught + r.caught,
      missed: t.missed + r.missed,
      errors: t.errors + r.errors,
    }),
    { probes: 0, caught: 0, missed: 0, errors: 0 },
  );
  const cells = [...rows.map((r) => ({ name: r.attack_class as string, ...r })), { name: 'total', ...total }].map(
    (r) => [r.name, String(r.probes), String(r.caught), String(r.missed), ...(withErrors ? [String(r.errors)] : [])],
  );
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => c.map((v, i) => (i === 0 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join('  ');
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(head), rule, ...cells.slice(0, -1).map(line), rule, line(cells.at(-1)!)].join('\n');
}

/** A one-line progress bar redrawn in place; nothing when stderr is not a terminal. */
function progressBar(): { update: (done: number, total: number) => void; end: () => void } {
  if (!process.stderr.isTTY) return { update: () => undefined, end: () => undefined };
  const width = 30;
  return {
    update: (done, total) => {
      const filled = Math.round((done / total) * width);
      process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} probes`);
    },
    end: () => process.stderr.write('\n'),
  };
}

/** Runs `redteam <verb>` with its own arguments; the exit code. */
export async function redteamCommand(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    return fail((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (positionals.join(' ') !== 'run') return fail(`unknown command: redteam ${positionals.join(' ')}`.trim());
  if (!values.target || !values.key) return fail('--target and --key are required');
  if (!/^https?:\/\//.test(values.target)) return fail('--target must be an http(s) URL');
  if (!values.authorized)
    return fail('--authorized is required: a red-team run needs written authorization from the target’s owner');
  const tier = (values.tier ?? 'auto') as (typeof TIERS)[number];
  if (!TIERS.includes(tier)) return fail(`--tier must be one of ${TIERS.join(', ')}`);
  const concurrency = Number(values.concurrency ?? '4');
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 32)
    return fail('--concurrency must be 1 to 32');
  const wanted = values.classes ? values.classes.split(',').map((c) => c.trim()) : [...ATTACK_CLASSES];
  const unknown = wanted.filter((c) => !(ATTACK_CLASSES as readonly string[]).includes(c));
  if (unknown.length) return fail(`unknown classes: ${unknown.join(', ')} (known: ${ATTACK_CLASSES.join(', ')})`);
  const probes = builtinCorpus().filter((p) => wanted.includes(p.attack_class as AttackClass));

  const bar = progressBar();
  try {
    const result = await runRedteam({
      target: values.target,
      key: values.key,
      probes,
      writtenAuthorization: true,
      upload: !values['no-upload'],
      trainingConsent: values['training-consent'] ?? false,
      operatorId: values.operator ?? null,
      tier,
      concurrency,
      onProgress: bar.update,
      warn: (m) => process.stderr.write(`\nwarning: ${m}\n`),
    });
    bar.end();
    if (values.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else
      process.stdout.write(
        `Red-team run ${result.run_id}: finished, verdict ${result.verdict}; ${result.uploaded} probes recorded as labeled events.\n\n${summaryTable(result.classes)}\n`,
      );
    return result.classes.some((c) => c.errors > 0) ? 1 : 0;
  } catch (err) {
    bar.end();
    if (err instanceof ApiProblem || err instanceof TypeError) {
      process.stderr.write(`error: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}

/**
 * `npx content-firewall scan`: scans text from stdin or a file with `POST /v1/scans` of a running
 * deployment and prints the decision and the findings; the exit code tells a CI job whether the
 * decision reached `--fail-on`.
 */
import { readFile } from 'node:fs/promises';
import type { Scan } from '../client/index.ts';
import { ACTIONS, SURFACES, TIERS } from '../engine/detector.ts';
import { severity } from '../engine/decision.ts';
import { call, clientOf, TARGET_FLAGS, targetOf } from './api-http.ts';
import { optional, table, UsageError, wrap, type CommandSpec, type Parsed } from './args.ts';

/** Exit code of a scan whose decision reached `--fail-on`. */
export const EXIT_DECISION = 3;

const FAIL_ON = [...ACTIONS.filter((a) => a !== 'allowed'), 'never'] as const;

/** The `scan` command. */
export const SCAN_COMMAND: CommandSpec = {
  name: 'scan',
  usage: `  scan [--file PATH] [--surface S] [--tier fast|accurate|auto] [--policy pol_...]
       [--fail-on blocked|flagged|warned|never] [--target URL] [--key KEY] [--json]
      Scans text from stdin (or the file PATH) with POST /v1/scans of a running deployment and
      prints the decision, its reason and each finding (detector, label, score, span, excerpt);
      --json prints the API's scan resource only. --surface (default user_message):
${wrap(SURFACES.join(', '), 92, '        ')}
      --policy decides with that policy instead of the organization's default.
      Exit 0 when the decision is below --fail-on (default blocked), ${EXIT_DECISION} when it reaches it,
      1 when the scan fails, 2 when the input is empty. KEY needs scans:write.`,
  flags: {
    ...TARGET_FLAGS,
    file: { type: 'string' },
    surface: { type: 'string' },
    tier: { type: 'string' },
    policy: { type: 'string' },
    'fail-on': { type: 'string' },
  },
};

/** `value` if it is one of `allowed`, else a usage error naming the flag and the choices. */
function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value))
    throw new UsageError(`--${flag} must be one of ${allowed.join(', ')}`);
  return value as T;
}

/** The text to scan: the file's, or stdin's when it is not a terminal. */
async function readInput(file: string | undefined): Promise<string> {
  if (file !== undefined) return readFile(file, 'utf8');
  if (process.stdin.isTTY) throw new UsageError('give the text on stdin (echo … | content-firewall scan) or --file');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The text to scan. @throws UsageError when it is empty or only whitespace: a CI gate fed an empty
 * file (a failed step before it) must not pass it as ALLOWED.
 */
async function textToScan(file: string | undefined): Promise<string> {
  const text = await readInput(file);
  if (text.trim() === '')
    throw new UsageError(`nothing to scan: ${file === undefined ? 'stdin' : file} is empty (or only whitespace)`);
  return text;
}

/** The excerpt of a finding: its text on one line, at most 48 characters, quoted. */
function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > 48 ? `${flat.slice(0, 47)}…` : flat);
}

/** The readable report: the decision line, then a row per finding item. */
export function scanReport(scan: Scan): string {
  const d = scan.decision;
  const why = [
    d.reason,
    d.triggering_finding && `triggered by ${d.triggering_finding}`,
    d.policy_id && `policy ${d.policy_id}`,
  ];
  const head = `Scan ${scan.id}: ${d.action.toUpperCase()} (${why.filter(Boolean).join('; ')})`;
  const rows = scan.findings.flatMap((f) =>
    f.items.map((i) => [f.detector, i.label, i.confidence.toFixed(2), `${i.span[0]}-${i.span[1]}`, excerpt(i.text)]),
  );
  if (rows.length === 0) return `${head}\n\nNo findings.`;
  return `${head}\n\n${table(['detector', 'label', 'score', 'span', 'excerpt'], rows)}`;
}

/**
 * Runs `scan`: the exit code (0, or EXIT_DECISION when the decision reached `--fail-on`).
 * @throws UsageError for a bad flag; ApiProblem / ApiUnreachable when the scan fails.
 */
export async function scanCommand({ values }: Parsed): Promise<number> {
  const target = targetOf(values);
  const surface = oneOf('surface', optional(values, 'surface') ?? 'user_message', SURFACES);
  const tier = oneOf('tier', optional(values, 'tier') ?? 'auto', TIERS);
  const failOn = oneOf('fail-on', optional(values, 'fail-on') ?? 'blocked', FAIL_ON);
  const policy = optional(values, 'policy');
  const text = await textToScan(optional(values, 'file'));
  const scan = await call(clientOf(target).scans.create, {
    kind: 'content',
    surface,
    content: { type: 'text', text },
    options: { tier, ...(policy ? { policy_id: policy } : {}) },
  });
  process.stdout.write(values.json ? `${JSON.stringify(scan, null, 2)}\n` : `${scanReport(scan)}\n`);
  const reached = failOn !== 'never' && severity(scan.decision.action) >= severity(failOn);
  return reached ? EXIT_DECISION : 0;
}

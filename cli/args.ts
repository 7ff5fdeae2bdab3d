/**
 * What every CLI command shares: its help block, its flags (each command accepts only its own, plus
 * `--json` and `--help`/`-h`), the usage error, and plain-text tables.
 */
import { parseArgs } from 'node:util';

/** A mistake in the command line: exit 2 with the command's usage. */
export class UsageError extends Error {}

/** A command's flags, as node:util `parseArgs` takes them. */
export type Flags = Record<string, { type: 'string' | 'boolean'; short?: string }>;

/** The flags of a parsed command line (`--json` included). */
export type Values = Record<string, string | boolean | undefined>;

/** A parsed command line: its flags and its operands (FILE …). */
export interface Parsed {
  values: Values;
  operands: string[];
}

/** One command of the CLI as `help` shows it and as its arguments are parsed. */
export interface CommandSpec {
  /** The words that name it: `keys create`. */
  name: string;
  /** The help block: synopsis lines, then the description indented by 6 spaces. */
  usage: string;
  /** The flags it accepts besides `--json` and `--help`. */
  flags: Flags;
  /** How many operands (after the name) it takes at most; default 0. */
  operands?: number;
}

const COMMON: Flags = { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } };

/** parseArgs' message in the CLI's words (Node's own for an unknown option leaves a quote open). */
function parseArgsMessage(err: Error & { code?: string }): string {
  const option = err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'([^']+)'/.exec(err.message)?.[1] : undefined;
  return option ? `unknown flag: ${option}` : err.message;
}

/**
 * Parses `args` (what follows the command's name) against the command's own flags.
 * @throws UsageError on an unknown flag, a flag without its value, or an operand too many.
 */
export function parseCommand(spec: CommandSpec, args: string[]): Parsed {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { ...spec.flags, ...COMMON }, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(parseArgsMessage(err as Error & { code?: string }));
  }
  const operands = parsed.positionals;
  if (operands.length > (spec.operands ?? 0)) throw new UsageError(`unexpected argument: ${operands.at(-1)}`);
  return { values: parsed.values as Values, operands };
}

/** Whether `args` ask for help (`--help` or `-h` anywhere). */
export function wantsHelp(args: string[]): boolean {
  return args.includes('--help') || args.includes('-h');
}

/** The string value of `--name`, or a usage error when it is missing or empty. */
export function required(values: Values, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

/** The string value of `--name`, or undefined when absent. */
export function optional(values: Values, name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

/** Writes `data` as JSON (`--json`) or `text`, on stdout. */
export function out(json: boolean, data: unknown, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(data, null, 2)}\n` : `${text}\n`);
}

/** `text` broken at spaces into lines of at most `width` characters, each after `indent`. */
export function wrap(text: string, width: number, indent: string): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.map((l) => indent + l).join('\n');
}

/** A plain-text table: the header, a rule, then the rows; columns padded to their widest cell. */
export function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

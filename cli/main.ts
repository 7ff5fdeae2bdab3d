/**
 * The CLI (`npx content-firewall …`, bin/content-firewall.js): operator commands on the database
 * (cli/operator.ts) and API commands against a running deployment (scan, policies, redteam).
 * Every command has its own help (`<command> --help`, `help <command>`) and accepts only its own flags.
 */
import { readFileSync } from 'node:fs';
import { fromRoot } from '../lib/package-root.ts';
import { SCOPES } from '../lib/scopes.ts';
import { redteamCommand, REDTEAM_USAGE } from './redteam.ts';
import { parseCommand, UsageError, wantsHelp, wrap, type CommandSpec, type Parsed } from './args.ts';
import { ApiProblem, ApiUnreachable, describeProblem } from './api-http.ts';
import { OPERATOR_COMMANDS } from './operator.ts';
import { EXIT_DECISION, SCAN_COMMAND, scanCommand } from './scan.ts';
import {
  POLICIES_APPLY_COMMAND,
  POLICIES_LIST_COMMAND,
  policiesApplyCommand,
  policiesListCommand,
} from './policies.ts';

/** A command that calls a running deployment's API: no database, no configuration. */
interface ApiCommand extends CommandSpec {
  run(p: Parsed): Promise<number>;
}

const API_COMMANDS: readonly ApiCommand[] = [
  { ...SCAN_COMMAND, run: scanCommand },
  { ...POLICIES_LIST_COMMAND, run: policiesListCommand },
  { ...POLICIES_APPLY_COMMAND, run: policiesApplyCommand },
];

/** `redteam run` parses its own arguments (cli/redteam.ts). */
const REDTEAM: CommandSpec = { name: 'redteam run', usage: REDTEAM_USAGE, flags: {} };

const COMMANDS: readonly CommandSpec[] = [...OPERATOR_COMMANDS, ...API_COMMANDS, REDTEAM];

const OPERATOR_NOTE = `ORG is an organization id, slug or exact display name. Operator commands read the same
configuration as the server: DATABASE_URL, or the embedded database under DATA_DIR (default ./.data),
used whether the server is running or stopped.`;

const API_NOTE = `scan and policies call a running deployment: --target URL (or CONTENT_FIREWALL_URL) and
--key KEY (or CONTENT_FIREWALL_API_KEY), an API key of the organization.`;

const SCOPES_NOTE = `Scopes (--scopes, comma-separated; admin implies every other):
${wrap(SCOPES.join(', '), 96, '  ')}`;

const USAGE = `Content firewall operator CLI

Usage: npx content-firewall <command> [options]     (or: npm run -s cli -- <command> [options])
       npx content-firewall <command> --help        (or: help <command>) one command's usage

Operator commands, on the database:
${OPERATOR_COMMANDS.map((c) => c.usage).join('\n')}

API commands, against a running deployment:
${[...API_COMMANDS, REDTEAM].map((c) => c.usage).join('\n')}

  help [COMMAND]
      This text, or one command's (npx keeps a --help placed before the command for itself).
  --version
      The version of this content firewall (package.json's).

${OPERATOR_NOTE}
${API_NOTE}
--json prints JSON only on stdout (logs go to stderr). Exit codes: 0 success, 1 refused or failed,
2 usage error; scan: ${EXIT_DECISION} when the decision reaches --fail-on.

${SCOPES_NOTE}`;

/** One command's help: its block and the notes that concern it. */
function commandHelp(spec: CommandSpec): string {
  const isOperator = OPERATOR_COMMANDS.some((c) => c.name === spec.name);
  const notes = isOperator ? [OPERATOR_NOTE] : spec === REDTEAM ? [] : [API_NOTE];
  if (spec.name === 'keys create' || spec.name === 'bootstrap') notes.push(SCOPES_NOTE);
  return [`Usage: npx content-firewall`, spec.usage, '', ...notes].join('\n');
}

/** The commands of a group (`keys` → keys list, create, …), or of the whole CLI. */
function groupHelp(group: string): string {
  const mine = COMMANDS.filter((c) => c.name.startsWith(`${group} `));
  return [`Usage: npx content-firewall`, ...mine.map((c) => c.usage)].join('\n');
}

/** The command `argv` names (two words, else one) and the arguments after its name. */
function find(argv: string[]): { spec: CommandSpec; rest: string[] } | null {
  for (const words of [2, 1]) {
    const name = argv.slice(0, words).join(' ');
    const spec = COMMANDS.find((c) => c.name === name);
    if (spec) return { spec, rest: argv.slice(words) };
  }
  return null;
}

const isGroup = (word: string | undefined) => !!word && COMMANDS.some((c) => c.name.startsWith(`${word} `));

/** `help [COMMAND]`: exit 0, or 2 for an unknown command. */
function help(words: string[]): number {
  const found = find(words);
  if (words.length === 0) process.stdout.write(`${USAGE}\n`);
  else if (found && found.rest.length === 0) process.stdout.write(`${commandHelp(found.spec)}\n`);
  else if (words.length === 1 && isGroup(words[0])) process.stdout.write(`${groupHelp(words[0]!)}\n`);
  else return usageError(`unknown command: ${words.join(' ')}`, USAGE);
  return 0;
}

function usageError(message: string, usage: string): number {
  process.stderr.write(`error: ${message}\n\n${usage}\n`);
  return 2;
}

/** Runs an operator command: its code and the database driver load only now (help stays quick). */
async function runOperator(spec: CommandSpec, parsed: Parsed): Promise<number> {
  const { runOperator: run } = await import('./operator-run.ts');
  return run(spec.name, parsed);
}

/** Runs the command line `argv`; the exit code. */
async function main(argv: string[]): Promise<number> {
  if (argv.length === 0) return usageError('no command given', USAGE);
  if (argv[0] === 'help' || wantsHelp(argv.slice(0, 1))) return help(argv.slice(1));
  if (argv[0] === '--version' && argv.length === 1) {
    const { version } = JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as { version: string };
    process.stdout.write(`${version}\n`);
    return 0;
  }
  const found = find(argv);
  if (!found) {
    if (isGroup(argv[0]) && (argv.length === 1 || wantsHelp(argv.slice(1, 2))))
      return argv.length === 1
        ? usageError(`no ${argv[0]} command given`, groupHelp(argv[0]!))
        : help(argv.slice(0, 1));
    return usageError(`unknown command: ${argv.slice(0, isGroup(argv[0]) ? 2 : 1).join(' ')}`, USAGE);
  }
  const { spec, rest } = found;
  if (wantsHelp(rest)) {
    process.stdout.write(`${commandHelp(spec)}\n`);
    return 0;
  }
  if (spec === REDTEAM) return redteamCommand(argv.slice(1));
  try {
    const parsed = parseCommand(spec, rest);
    const api = API_COMMANDS.find((c) => c === spec);
    return api ? await api.run(parsed) : await runOperator(spec, parsed);
  } catch (err) {
    if (err instanceof UsageError) return usageError(err.message, commandHelp(spec));
    if (err instanceof ApiProblem) process.stderr.write(`error: ${describeProblem(err)}\n`);
    else if (err instanceof ApiUnreachable) process.stderr.write(`error: ${err.message}\n`);
    else throw err;
    return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: Error) => {
    process.stderr.write(`error: ${err.message}\n`);
    process.exit(1);
  },
);

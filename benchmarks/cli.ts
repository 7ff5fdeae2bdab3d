import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

/** A benchmark script's command line: its parsed values, and the refusals that print the usage. */
export interface Cli<V> {
  values: V;
  /** Prints `message` and the usage on stderr, exits 2. */
  fail(message: string): never;
  /** `raw` as a positive integer (undefined stays undefined), or fail() naming the flag. */
  positiveInt<R extends string | undefined>(name: string, raw: R): R extends string ? number : number | undefined;
}

/**
 * Parses process.argv for a benchmark script (`npm run bench`, `npm run soak`): `--help` prints the
 * usage and exits 0; an unknown flag or a bad value exits 2 with the usage.
 */
export function parseCli<O extends Options>(usage: string, options: O) {
  const fail = (message: string): never => {
    process.stderr.write(`${message}\n${usage}\n`);
    process.exit(2);
  };
  type Config = { options: O & { help: { type: 'boolean'; default: false } } };
  const config: Config = { options: { ...options, help: { type: 'boolean', default: false } } };
  let parsed: ReturnType<typeof parseArgs<Config>>;
  try {
    parsed = parseArgs<Config>(config);
  } catch (err) {
    return fail((err as Error).message);
  }
  const values = parsed.values;
  if ((values as { help?: boolean }).help) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  const positiveInt = (name: string, raw: string | undefined) => {
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1) fail(`--${name} takes a positive integer (got ${JSON.stringify(raw)})`);
    return n;
  };
  return { values, fail, positiveInt } as Cli<typeof values>;
}

/**
 * The operator CLI run as a child process against the test database (no Redis: the CLI's revocation
 * bus is then in-process), through its binary as `npx content-firewall` runs it.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { inject } from 'vitest';

const run = promisify(execFile);

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The CLI's environment: the test database, a fixed master secret, warnings only. */
export function cliEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: inject('databaseUrl'),
    SECRET_KEY: 'cli-test-secret-0123456789abcdef',
    LOG_LEVEL: 'warn',
  };
  delete env.REDIS_URL;
  return env;
}

/** Runs `bin/content-firewall.js ...args`; resolves with its exit code and output whatever the code. */
export function runCli(...args: string[]): Promise<CliResult> {
  return run(process.execPath, ['bin/content-firewall.js', ...args], { env: cliEnv(), timeout: 60_000 }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (err: CliResult) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
  );
}

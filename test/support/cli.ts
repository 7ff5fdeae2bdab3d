/**
 * The CLI run as a child process against the test database (no Redis: the CLI's revocation bus is
 * then in-process), through its binary as `npx content-firewall` runs it: the compiled build, which
 * test/global-setup.ts makes.
 */
import { spawn } from 'node:child_process';
import { inject } from 'vitest';
import { TEST_MASTER_SECRET } from './harness.ts';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** What a run may add: text on stdin, extra environment variables. */
export interface CliOptions {
  stdin?: string;
  env?: Record<string, string>;
}

/** The CLI's environment: the test database, the test apps' master secret, warnings only. */
export function cliEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: inject('databaseUrl'),
    // The apps' master secret: the database records one (store/secret-check.ts), and refuses a start with another.
    SECRET_KEY: TEST_MASTER_SECRET,
    LOG_LEVEL: 'warn',
  };
  delete env.REDIS_URL;
  delete env.CONTENT_FIREWALL_URL;
  delete env.CONTENT_FIREWALL_API_KEY;
  return env;
}

/**
 * Runs `bin/content-firewall.js ...args` with `o.stdin` on its stdin (empty when absent: closed at
 * once); resolves with its exit code and output whatever the code.
 */
export function runCliWith(o: CliOptions, ...args: string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/content-firewall.js', ...args], {
      env: { ...cliEnv(), ...o.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: 120_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(o.stdin ?? '');
  });
}

/** Runs `bin/content-firewall.js ...args`; resolves with its exit code and output whatever the code. */
export function runCli(...args: string[]): Promise<CliResult> {
  return runCliWith({}, ...args);
}

/**
 * A server started as a child process (`server/main.ts`, cluster or not) logs JSON lines on stdout:
 * these collect them and wait for one, so a test can start the real entry point and read its logs.
 */
import type { ChildProcess } from 'node:child_process';

/** Appends every JSON log line `child` writes on stdout to `lines` (other output is skipped). */
export function collectLogLines<T>(child: ChildProcess, lines: T[]): void {
  let buffered = '';
  child.stdout!.on('data', (d: Buffer) => {
    buffered += d.toString();
    const parts = buffered.split('\n');
    buffered = parts.pop()!;
    for (const l of parts) {
      try {
        lines.push(JSON.parse(l) as T);
      } catch {
        // not a log line
      }
    }
  });
}

/** Resolves once a line with `msg` is in `lines`. @throws after `timeoutMs` (default 45 s). */
export async function waitForLogLine(
  lines: readonly { msg?: unknown }[],
  msg: string,
  timeoutMs = 45_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!lines.some((l) => l.msg === msg)) {
    if (Date.now() > deadline) throw new Error(`no "${msg}" log line within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

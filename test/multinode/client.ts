/**
 * What the cross-node tests share: one HTTP call (JSON in, JSON out), a scan body, bounded
 * concurrency, and how many requests HAProxy sent to each node while something ran.
 */
import type { Bed } from './bed.ts';

export interface Reply {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are checked by the tests
  body: any;
}

/** One request to `baseUrl` (the balancer or a node), with an API key and a JSON body. */
export async function call(
  baseUrl: string,
  method: string,
  path: string,
  o: { key?: string; json?: unknown; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.key) headers.authorization = `Bearer ${o.key}`;
  if (o.json !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    body: o.json === undefined ? undefined : JSON.stringify(o.json),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    // not JSON (an SSE stream, a balancer's error page)
  }
  return { status: res.status, headers: res.headers, body };
}

/** A content scan at the fast tier (no model thread needed). */
export function scanBody(text: string): unknown {
  return { kind: 'content', surface: 'user_message', content: { type: 'text', text }, options: { tier: 'fast' } };
}

/** Runs `fn` over `items` with at most `concurrency` at once; results in input order. */
export async function inPool<T, R>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}

/** Runs `fn` and returns, beside its result, how many requests HAProxy sent to each node meanwhile. */
export async function spread<R>(
  bed: Bed,
  fn: () => Promise<R>,
): Promise<{ result: R; perNode: Record<string, number> }> {
  const before = await bed.serverStats();
  const result = await fn();
  const after = await bed.serverStats();
  const perNode: Record<string, number> = {};
  for (const [name, stat] of after) perNode[name] = stat.sessions - (before.get(name)?.sessions ?? 0);
  return { result, perNode };
}

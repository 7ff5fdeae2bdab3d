/**
 * What the legacy-*.test.ts files share: a call to the legacy listener (text/plain by default), an
 * analysis session created through v1, and the assertion every legacy error shares.
 */
import { expect } from 'vitest';
import { call, type TestApp, type TestOrg } from '../support/harness.ts';

export interface LegacyReply {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface LegacyCall {
  key?: string | null;
  /** The body; omitted → no body. */
  text?: string;
  contentType?: string | null;
  method?: string;
  headers?: Record<string, string>;
}

/** One request to the legacy API at `path` (`/v1/analysis/1?detections=pii`). */
export async function legacy(app: TestApp, path: string, o: LegacyCall = {}): Promise<LegacyReply> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.key) headers.authorization = `Bearer ${o.key}`;
  if (o.text !== undefined && o.contentType !== null) headers['content-type'] = o.contentType ?? 'text/plain';
  // fetch labels a string body text/plain itself: bytes go without a Content-Type.
  const body = o.text !== undefined && o.contentType === null ? new TextEncoder().encode(o.text) : o.text;
  const res = await fetch(`${app.legacyBaseUrl}${path}`, { method: o.method ?? 'POST', headers, body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : undefined };
}

/** A new analysis session of `org` (through `POST /v1/legacy-analyses`); its id. */
export async function newAnalysis(app: TestApp, org: TestOrg, name = 'legacy test'): Promise<number> {
  const r = await call(app, 'POST', '/v1/legacy-analyses', { key: org.admin, json: { name } });
  expect(r.status, r.text).toBe(201);
  return r.body.analysis_id as number;
}

/** The legacy error body: the code, the parameter at fault, a suggestion; application/json. */
export function expectLegacyError(r: LegacyReply, status: number, code: string, parameter?: string): void {
  expect(r.status, r.text).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Object.keys(r.body)).toEqual(['error']);
  expect(Object.keys(r.body.error).sort()).toEqual(['code', 'details', 'message']);
  expect(Object.keys(r.body.error.details).sort()).toEqual(['parameter', 'suggestion']);
  expect(r.body.error.code).toBe(code);
  expect(typeof r.body.error.message).toBe('string');
  expect(typeof r.body.error.details.suggestion).toBe('string');
  if (parameter !== undefined) expect(r.body.error.details.parameter).toBe(parameter);
}

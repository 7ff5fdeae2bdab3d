/**
 * The client package's pieces that need no service: its operation table against the OpenAPI
 * document, the types of its methods (checked by tsc), the retry arithmetic, the event-stream parser
 * and pagination.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { offlineOpenApiDocument } from '../../api/openapi/offline.ts';
import { LATEST_API_VERSION } from '../../api/versions.ts';
import type { components } from '../../client/api-types.ts';
import { boundOperations, createClient } from '../../client/client.ts';
import { ContentFirewallError } from '../../client/errors.ts';
import { CLIENT_API_VERSION, CLIENT_VERSION, EventStreamParser, paginate } from '../../client/index.ts';
import { OPERATIONS } from '../../client/operations.ts';
import { backoffMs, retryAfterMs, retryPolicy } from '../../client/retry.ts';

const client = createClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'sk_test_x' });

/** `'<METHOD> <template>'` of every operation of the document, with its Idempotency-Key flag. */
function documentOperations(): Map<string, boolean> {
  const doc = offlineOpenApiDocument() as {
    paths: Record<string, Record<string, { parameters?: { $ref?: string }[] }>>;
  };
  const out = new Map<string, boolean>();
  for (const [path, methods] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(methods)) {
      const idempotent = (op.parameters ?? []).some((p) => p.$ref?.endsWith('/IdempotencyKey'));
      out.set(`${method.toUpperCase()} ${path}`, idempotent);
    }
  return out;
}

describe('operation table', () => {
  it('has exactly the operations of the OpenAPI document (a new route needs a client method)', () => {
    const doc = documentOperations();
    expect(Object.keys(OPERATIONS).sort()).toEqual([...doc.keys()].sort());
    for (const [key, idempotent] of doc)
      expect([key, OPERATIONS[key as keyof typeof OPERATIONS].idempotent]).toEqual([key, idempotent]);
  });

  it('every operation has a named method on the client', () => {
    expect(boundOperations(client).sort()).toEqual(Object.keys(OPERATIONS).sort());
  });

  it("sends the package's version in its User-Agent, and that version follows the API's", () => {
    const pkg = JSON.parse(readFileSync(new URL('../../client/package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(CLIENT_VERSION).toBe(pkg.version);
    // <API major>.<revision YYYYMMDD>.<client fix>: the revision is the service's latest
    expect(CLIENT_API_VERSION).toBe(LATEST_API_VERSION);
    const [major, revision] = CLIENT_VERSION.split('.');
    const versioned = Object.keys(OPERATIONS).flatMap((k) => /^\S+ \/(v\d+)\//.exec(k)?.[1] ?? []);
    expect(new Set(versioned)).toEqual(new Set([`v${major}`]));
    expect(revision).toBe(LATEST_API_VERSION.replaceAll('-', ''));
  });
});

describe('method types (checked by tsc)', () => {
  it('take path parameters, then query or body, then options; return the documented body', () => {
    type ApiKey = components['schemas']['ApiKey'];
    expectTypeOf(client.apiKeys.get).parameters.toEqualTypeOf<
      [string, { idempotencyKey?: string; signal?: AbortSignal; headers?: Record<string, string> }?]
    >();
    expectTypeOf(client.apiKeys.get).returns.resolves.toEqualTypeOf<ApiKey>();
    expectTypeOf(client.apiKeys.list).returns.resolves.toEqualTypeOf<components['schemas']['ApiKeyPage']>();
    expectTypeOf(client.apiKeys.create).returns.resolves.toEqualTypeOf<components['schemas']['ApiKeyWithSecret']>();
    expectTypeOf(client.apiKeys.iterate).returns.toEqualTypeOf<AsyncGenerator<ApiKey>>();
    expectTypeOf(client.scans.create).returns.resolves.toEqualTypeOf<components['schemas']['Scan']>();
    expectTypeOf(client.service.metrics).returns.resolves.toEqualTypeOf<string>();
    expectTypeOf(client.apiKeys.revoke).returns.resolves.toEqualTypeOf<undefined>();
  });

  it('rejects wrong calls at compile time', () => {
    const never = () => {
      // @ts-expect-error the key id is required
      void client.apiKeys.rotate();
      // @ts-expect-error analytics need since and until
      void client.analytics.summary();
      // @ts-expect-error a scan needs its content
      void client.scans.create({});
      // @ts-expect-error no such query parameter
      void client.apiKeys.list({ limt: 5 });
      // @ts-expect-error keys are revoked, not deleted
      void client.apiKeys.delete('ak_1');
      // @ts-expect-error not an operation of the API
      void client.request('GET /v1/nothing');
    };
    expect(typeof never).toBe('function');
  });
});

describe('retries', () => {
  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs(null)).toBeUndefined();
    expect(retryAfterMs('soon')).toBeUndefined();
    const now = Date.parse('2026-11-24T10:00:00Z');
    expect(retryAfterMs('Tue, 24 Nov 2026 10:00:05 GMT', now)).toBe(5000);
  });

  it('backs off exponentially with full jitter, capped', () => {
    const policy = retryPolicy({ baseDelayMs: 100, maxDelayMs: 1000 });
    expect([0, 1, 2, 3, 4].map((r) => backoffMs(policy, r, () => 0.999))).toEqual([99, 199, 399, 799, 999]);
    expect(backoffMs(policy, 3, () => 0)).toBe(0);
    expect(retryPolicy(false).maxRetries).toBe(0);
    expect(retryPolicy({ maxRetries: undefined, baseDelayMs: undefined }), 'undefined means the default').toMatchObject(
      {
        maxRetries: 3,
        baseDelayMs: 500,
      },
    );
    expect(() => retryPolicy({ maxRetries: -1 })).toThrow(TypeError);
  });
});

describe('event-stream parser', () => {
  it('splits events across any chunking and line ending, joins data lines, skips comments', () => {
    const text =
      ': hi\r\nid: 1\r\nevent: detector\r\ndata: {"a":1}\r\n\r\nid: 2\nevent: decision\ndata: x\ndata: y\n\ndata: z\r\r';
    for (const size of [1, 2, 3, 7, text.length]) {
      const parser = new EventStreamParser();
      const events = [];
      for (let i = 0; i < text.length; i += size) events.push(...parser.feed(text.slice(i, i + size)));
      events.push(...parser.end());
      expect(events).toEqual([
        { event: 'detector', data: '{"a":1}', id: '1' },
        { event: 'decision', data: 'x\ny', id: '2' },
        { event: 'message', data: 'z', id: '2' },
      ]);
    }
  });
});

describe('paginate', () => {
  it('follows next_cursor until it is null', async () => {
    const pages: Record<string, { data: number[]; next_cursor: string | null }> = {
      start: { data: [1, 2], next_cursor: 'b' },
      b: { data: [3], next_cursor: 'c' },
      c: { data: [], next_cursor: null },
    };
    const seen: unknown[] = [];
    const items: number[] = [];
    for await (const n of paginate(
      async (q: { limit: number; cursor?: string }) => (seen.push(q), pages[q.cursor ?? 'start']!),
      {
        limit: 2,
      },
    ))
      items.push(n);
    expect(items).toEqual([1, 2, 3]);
    expect(seen).toEqual([{ limit: 2 }, { limit: 2, cursor: 'b' }, { limit: 2, cursor: 'c' }]);
  });
});

describe('ContentFirewallError', () => {
  it('carries the problem', () => {
    const err = new ContentFirewallError({
      status: 404,
      problem: {
        type: 'urn:x',
        title: 'API key not found',
        status: 404,
        code: 'api_keys.not_found',
        detail: 'No such key',
        instance: '/v1/api-keys/x',
        request_id: 'req_1',
      },
    });
    expect([err.code, err.status, err.requestId, err.message]).toEqual([
      'api_keys.not_found',
      404,
      'req_1',
      'API key not found: No such key',
    ]);
    expect(err).toBeInstanceOf(Error);
  });
});

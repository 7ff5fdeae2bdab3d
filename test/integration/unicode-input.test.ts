import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildOrg,
  call,
  expectProblem,
  startTestApp,
  type Reply,
  type TestApp,
  type TestOrg,
} from '../support/harness.ts';

// Strings PostgreSQL cannot store as sent (jsonb refuses a lone `\uD800` escape and U+0000; text turns
// a lone surrogate into U+FFFD): 400 naming the field everywhere, except in a scan's content, where each
// becomes U+FFFD so finding spans still index the submitted text (docs/api.md, "Text").

let app: TestApp;
let org: TestOrg;
let policyId: string;

beforeAll(async () => {
  app = await startTestApp({
    // Webhooks are registered on loopback (allowed for tests) and never delivered to: nothing leaves the machine.
    env: { WEBHOOK_DELIVERY_ENABLED: 'false', WEBHOOK_ALLOW_PRIVATE: '127.0.0.1' },
  });
  org = await buildOrg(app);
  const p = await call(app, 'POST', '/v1/policies', { key: org.admin, json: policy({}) });
  expect(p.status).toBe(201);
  policyId = p.body.id;
});
afterAll(async () => app?.close());

const SURROGATE = /lone UTF-16 surrogate/;
const BAD: [string, string, RegExp][] = [
  ['a lone high surrogate', 'x\ud800y', SURROGATE],
  ['a lone low surrogate', 'x\udc00y', SURROGATE],
  ['a reversed pair', 'x\ude00\ud83dy', SURROGATE],
  ['a high surrogate at the end', 'xy\udbff', SURROGATE],
  ['a low surrogate first', '\udfffxy', SURROGATE],
  ['a NUL', 'x\u0000y', /NUL character/],
];
// A proper surrogate pair (U+1F600) next to BMP text: accepted and returned unchanged.
const EMOJI = 'ok \ud83d\ude00 fine';

const rule = (over: Record<string, unknown> = {}) => ({
  name: 'r',
  when: { all_of: [{ detector: 'pii', label_in: ['US_SSN'] }] },
  then: { action: 'blocked' },
  ...over,
});
const policy = (over: Record<string, unknown>) => ({ name: 'p', rules: [rule()], default_action: 'allowed', ...over });
const scan = (over: Record<string, unknown>) => ({
  kind: 'content',
  surface: 'user_message',
  content: { type: 'text', text: 'hello' },
  options: { tier: 'fast' },
  ...over,
});
const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

interface Field {
  method: 'POST' | 'PUT';
  path: () => string;
  body: (v: string) => unknown;
  /** Where the value comes back in the resource (after a create, and from its GET). */
  read: (resource: Reply['body']) => unknown;
  /** What the accepted value reads back as (default: itself). */
  expected?: (v: string) => unknown;
}

const FIELDS: Record<string, Field> = {
  name: { method: 'POST', path: () => '/v1/policies', body: (v) => policy({ name: v }), read: (b) => b.name },
  'rules.0.name': {
    method: 'POST',
    path: () => '/v1/policies',
    body: (v) => policy({ rules: [rule({ name: v })] }),
    read: (b) => b.rules[0].name,
  },
  'rules.0.when.all_of.0.label_in.0': {
    method: 'POST',
    path: () => '/v1/policies',
    body: (v) => policy({ rules: [rule({ when: { all_of: [{ detector: 'pii', label_in: [v] }] } })] }),
    read: (b) => b.rules[0].when.all_of[0].label_in[0],
  },
  'rules.0.when.all_of.0.equals': {
    method: 'POST',
    path: () => '/v1/policies',
    body: (v) => policy({ rules: [rule({ when: { all_of: [{ context: 'agent_id', equals: v }] } })] }),
    read: (b) => b.rules[0].when.all_of[0].equals,
  },
  'allowed_mcp_servers.0': {
    method: 'POST',
    path: () => '/v1/policies',
    body: (v) => policy({ allowed_mcp_servers: [v] }),
    read: (b) => b.allowed_mcp_servers[0],
  },
  'blocked_mcp_servers.0': {
    method: 'POST',
    path: () => '/v1/policies',
    body: (v) => policy({ blocked_mcp_servers: [v] }),
    read: (b) => b.blocked_mcp_servers[0],
  },
  'blocked_mcp_tools.0.tool_name': {
    method: 'POST',
    path: () => '/v1/policies',
    body: (v) => policy({ blocked_mcp_tools: [{ server: 'files', tool_name: v }] }),
    read: (b) => b.blocked_mcp_tools[0].tool_name,
  },
  'allowed_mcp_tools.0.server': {
    method: 'POST',
    path: () => '/v1/policies',
    body: (v) => policy({ allowed_mcp_tools: [{ server: v, tool_name: 'read' }] }),
    read: (b) => b.allowed_mcp_tools[0].server,
  },
  'rules.0.name (replace)': {
    method: 'PUT',
    path: () => `/v1/policies/${policyId}`,
    body: (v) => policy({ rules: [rule({ name: v })] }),
    read: (b) => b.rules[0].name,
  },
  'context.agent_id': {
    method: 'POST',
    path: () => '/v1/scans',
    body: (v) => scan({ context: { agent_id: v } }),
    read: (b) => b.context.agent_id,
  },
  'context.session_id': {
    method: 'POST',
    path: () => '/v1/scans',
    body: (v) => scan({ context: { session_id: v } }),
    read: (b) => b.context.session_id,
  },
  'context.mcp_server': {
    method: 'POST',
    path: () => '/v1/scans',
    body: (v) => scan({ context: { mcp_server: v } }),
    read: (b) => b.context.mcp_server,
  },
  'context.trace_id': {
    method: 'POST',
    path: () => '/v1/scans',
    body: (v) => scan({ context: { trace_id: v } }),
    read: (b) => b.context.trace_id,
  },
  'context.end_user_id': {
    method: 'POST',
    path: () => '/v1/scans',
    body: (v) => scan({ context: { end_user_id: v } }),
    read: (b) => b.context.end_user_id_hash,
    expected: sha256,
  },
  'name (API key)': {
    method: 'POST',
    path: () => '/v1/api-keys',
    body: (v) => ({ name: v, scopes: ['scans:read'] }),
    read: (b) => b.name,
  },
  'description (webhook)': {
    method: 'POST',
    path: () => '/v1/webhooks',
    body: (v) => ({ url: 'https://127.0.0.1:9/in', events: ['scan.blocked'], description: v }),
    read: (b) => b.description,
  },
};
const errorPath = (field: string) => field.replace(/ \(.*\)$/, '');

describe('strings PostgreSQL cannot store are 400 naming the field, never a 500', () => {
  const rows = Object.keys(FIELDS).flatMap((field) =>
    BAD.map(([what, value, message]) => [field, what, value, message] as const),
  );
  it.each(rows)('%s with %s', async (field, _what, value, message) => {
    const f = FIELDS[field]!;
    const r = await call(app, f.method, f.path(), { key: org.admin, json: f.body(value) });
    expectProblem(r, 400, 'request.validation_failed');
    expect(r.body.errors).toHaveLength(1);
    expect(r.body.errors[0].path).toBe(errorPath(field));
    expect(r.body.errors[0].message).toMatch(message);
  });

  it.each(Object.keys(FIELDS))(
    '%s with a proper surrogate pair is accepted and round-trips unchanged',
    async (field) => {
      const f = FIELDS[field]!;
      const r = await call(app, f.method, f.path(), { key: org.admin, json: f.body(EMOJI) });
      expect(r.status, r.text).toBeLessThan(300);
      const expected = (f.expected ?? ((v: string) => v))(EMOJI);
      expect(f.read(r.body)).toBe(expected);
      const got = await call(app, 'GET', r.headers.get('location') ?? f.path(), { key: org.admin });
      expect(got.status).toBe(200);
      expect(f.read(got.body)).toBe(expected);
    },
  );

  it('an upper-case escape (\\uD800) and a lone surrogate in an object key are found too', async () => {
    const upper = await call(app, 'POST', '/v1/policies', {
      key: org.admin,
      raw: '{"name": "p\\uDC00", "rules": [], "default_action": "allowed"}',
    });
    expectProblem(upper, 400, 'request.validation_failed');
    expect(upper.body.errors[0].path).toBe('name');
    const key = await call(app, 'POST', '/v1/policies', {
      key: org.admin,
      json: policy({ detector_config: { 'pii\ud800': { enabled: false } } }),
    });
    expectProblem(key, 400, 'request.validation_failed');
    expect(key.body.errors).toEqual([{ path: 'detector_config.pii\ud800', message: expect.stringMatching(SURROGATE) }]);
    // A literal backslash-u-D800 in text (an escaped backslash) is six ordinary characters.
    const literal = await call(app, 'POST', '/v1/api-keys', {
      key: org.admin,
      json: { name: 'literal \\ud800 text', scopes: ['scans:read'] },
    });
    expect(literal.status).toBe(201);
    expect(literal.body.name).toBe('literal \\ud800 text');
  });

  it('a deeply nested body is walked without recursion (400, not a stack overflow)', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const r = await call(app, 'POST', '/v1/policies', {
      key: org.admin,
      raw: `{"deep": ${deep}, "name": "p\\ud800", "rules": [], "default_action": "allowed"}`,
    });
    expectProblem(r, 400, 'request.validation_failed');
    expect(r.body.errors[0].path).toBe('name');
    // In a scan's content the replacement copies the tree: also without recursion.
    const c = await call(app, 'POST', '/v1/scans', {
      key: org.admin,
      raw: `{"kind": "content", "surface": "user_message", "content": {"type": "text", "text": "a\\ud800", "deep": ${deep}}}`,
    });
    expectProblem(c, 400, 'request.validation_failed');
    expect(c.body.errors[0].path).toBe('content');
  });

  it('raw UTF-8 bytes of a surrogate (invalid UTF-8) decode to U+FFFD, never to a lone surrogate', async () => {
    const body = Buffer.concat([
      Buffer.from('{"name": "a'),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from('b", "scopes": ["scans:read"]}'),
    ]);
    const res = await fetch(`${app.baseUrl}/v1/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.admin}`, 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(201);
    const { name } = (await res.json()) as { name: string };
    expect(name).toMatch(/^a\ufffd+b$/);
  });

  it('a body in UTF-16 (where a lone surrogate needs no escape) is 415: bodies are UTF-8', async () => {
    const text = JSON.stringify(policy({ name: 'p' })).replace('"p"', '"p\ud800"');
    const res = await fetch(`${app.baseUrl}/v1/policies`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.admin}`, 'content-type': 'application/json; charset=utf-16le' },
      body: Buffer.from(text, 'utf16le'),
    });
    expect(res.status).toBe(415);
    expect(((await res.json()) as { code: string }).code).toBe('request.unsupported_media_type');
    const utf8 = await call(app, 'POST', '/v1/api-keys', {
      key: org.admin,
      json: { name: 'n', scopes: ['scans:read'] },
      headers: { 'content-type': 'application/json; charset=UTF-8' },
    });
    expect(utf8.status).toBe(201);
  });
});

describe('a scan content holding them: stored with U+FFFD, one unit for one, so spans hold', () => {
  it('text: 201, the captured text has U+FFFD where each lone surrogate or NUL was, spans index the submitted text', async () => {
    const t = 'a \ud800 b \udc00\ud800 c \u0000 card 4111 1111 1111 1111 \ud83d\ude00 end \udbff';
    const fixed = 'a \ufffd b \ufffd\ufffd c \ufffd card 4111 1111 1111 1111 \ud83d\ude00 end \ufffd';
    const r = await call(app, 'POST', '/v1/scans', {
      key: org.admin,
      json: scan({ content: { type: 'text', text: t }, options: { tier: 'fast', capture: true } }),
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body.content.text).toBe(fixed);
    expect(fixed).toHaveLength(t.length);
    const card = r.body.findings
      .flatMap((f: { items: unknown[] }) => f.items)
      .find((i: { label: string }) => i.label === 'CREDIT_CARD');
    expect(t.slice(card.span[0], card.span[1])).toBe(card.text);
    expect(card.text).toBe('4111 1111 1111 1111');
    expect((await call(app, 'GET', `/v1/scans/${r.body.id}`, { key: org.admin })).body).toEqual(r.body);
    const { rows } = await app.db.query('SELECT content FROM scans WHERE org_id = $1 AND id = $2', [
      org.orgId,
      r.body.id,
    ]);
    expect(rows[0].content.text).toBe(fixed);
  });

  it('toolset: descriptions, names and input-schema keys are content too', async () => {
    const tools = [
      {
        server: 'files\ud800',
        name: 'read',
        description: 'Reads \udc00 files.',
        input_schema: { properties: { 'path\ud800': { description: 'x\u0000' } } },
      },
    ];
    const r = await call(app, 'POST', '/v1/scans', {
      key: org.admin,
      json: {
        kind: 'toolset',
        surface: 'mcp_tool_description',
        content: { type: 'toolset', tools },
        options: { tier: 'fast', capture: true },
      },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body.content.tools).toEqual([
      {
        server: 'files\ufffd',
        name: 'read',
        description: 'Reads \ufffd files.',
        input_schema: { properties: { 'path\ufffd': { description: 'x\ufffd' } } },
      },
    ]);
  });

  it('outside the content they are still refused (context, options)', async () => {
    const r = await call(app, 'POST', '/v1/scans', {
      key: org.admin,
      json: scan({ content: { type: 'text', text: 'fine \ud800' }, context: { agent_id: 'bot\u0000' } }),
    });
    expectProblem(r, 400, 'request.validation_failed');
    expect(r.body.errors[0].path).toBe('context.agent_id');
    const d = await call(app, 'POST', '/v1/scans', {
      key: org.admin,
      json: scan({ options: { detectors: ['pii\udfff'] } }),
    });
    expectProblem(d, 400, 'request.validation_failed');
    expect(d.body.errors[0].path).toBe('options.detectors.0');
  });
});

describe('query strings and path parameters', () => {
  it.each([
    ['/v1/scans?agent_id=%ED%A0%80', 'query.agent_id'], // the UTF-8 bytes of U+D800
    ['/v1/scans?agent_id=%FF', 'query.agent_id'], // not UTF-8
    ['/v1/scans?agent_id=%ZZ', 'query.agent_id'], // not an escape
    ['/v1/scans?limit=5&session_id=%E0%A4%A', 'query.session_id'], // a truncated escape
    ['/v1/scans?session_id=%00', 'query.session_id'],
    ['/v1/scans?end_user_id=a%00b', 'query.end_user_id'],
    ['/v1/audit-events?agent_id=%00', 'query.agent_id'],
    ['/v1/audit-events?actor_id=%ED%B0%80', 'query.actor_id'],
    ['/v1/audit-events?resource_id=x&resource_id=%00', 'query.resource_id.1'],
    ['/v1/policies?cursor=%00', 'query.cursor'],
    ['/v1/webhooks?cursor=%C0%AF', 'query.cursor'], // an overlong encoding
    ['/v1/scans?%FF=1', 'query.%FF'],
  ])('%s → 400 at %s', async (url, path) => {
    const r = await call(app, 'GET', url, { key: org.admin });
    expectProblem(r, 400, 'request.validation_failed');
    expect(r.body.errors[0].path).toBe(path);
  });

  it('a percent-encoded surrogate pair is a filter like any other', async () => {
    const agent = `agent ${EMOJI} ${Date.now()}`;
    const s = await call(app, 'POST', '/v1/scans', { key: org.admin, json: scan({ context: { agent_id: agent } }) });
    expect(s.status).toBe(201);
    const list = await call(app, 'GET', `/v1/scans?agent_id=${encodeURIComponent(agent).replaceAll('%20', '+')}`, {
      key: org.admin,
    });
    expect(list.status).toBe(200);
    expect(list.body.data.map((x: { id: string }) => x.id)).toEqual([s.body.id]);
  });

  it.each(['/v1/scans/%ED%A0%80', '/v1/scans/%00', '/v1/policies/%FF', '/v1/webhooks/%ZZ', '/v1/api-keys/ak_%00'])(
    '%s → 400',
    async (url) => {
      const r = await call(app, 'GET', url, { key: org.admin });
      expect(r.status).toBe(400);
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    },
  );
});

describe('headers that are stored or logged', () => {
  it('X-Request-Id outside its plain ASCII shape is replaced; an Idempotency-Key outside printable ASCII is 400', async () => {
    const r = await call(app, 'GET', '/v1/me', { key: org.admin, headers: { 'x-request-id': 'caf\u00e9\u00ff' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-request-id')).toMatch(/^req_[0-9A-HJKMNP-TV-Z]{26}$/);
    const i = await call(app, 'POST', '/v1/api-keys', {
      key: org.admin,
      json: { name: 'n', scopes: ['scans:read'] },
      headers: { 'idempotency-key': 'k\u00e9y' },
    });
    expect(i.status).toBe(400);
  });
});

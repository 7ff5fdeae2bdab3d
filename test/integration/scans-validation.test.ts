import { describe, expect, it } from 'vitest';
import { expectProblem } from '../support/harness.ts';
import { app, org, PNG_1PX, scan, text, useScansApp } from './scans-fixture.ts';

useScansApp();

describe('bad scan requests: 400 problem+json, nothing stored', () => {
  const cases: [string, unknown, string][] = [
    ['missing kind', { surface: 'user_message', content: { type: 'text', text: 'x' } }, 'request.validation_failed'],
    ['wrong kind', { ...text('x'), kind: 'document' }, 'request.validation_failed'],
    ['unknown surface', { ...text('x'), surface: 'email' }, 'request.validation_failed'],
    ['unknown content type', { ...text('x'), content: { type: 'html', text: 'x' } }, 'request.validation_failed'],
    ['text not a string', { ...text('x'), content: { type: 'text', text: 42 } }, 'request.validation_failed'],
    ['oversized text', text('a'.repeat(50_001)), 'request.validation_failed'],
    [
      'bad base64',
      { ...text('x'), content: { type: 'image_base64', data: 'not base64!!' } },
      'request.validation_failed',
    ],
    [
      'base64 that is not an image',
      {
        ...text('x'),
        content: { type: 'image_base64', data: Buffer.from('hello world, not an image').toString('base64') },
      },
      'request.validation_failed',
    ],
    [
      'media_type mismatch',
      { ...text('x'), content: { type: 'image_base64', data: PNG_1PX, media_type: 'image/jpeg' } },
      'request.validation_failed',
    ],
    [
      'unsupported media_type',
      { ...text('x'), content: { type: 'image_base64', data: PNG_1PX, media_type: 'image/svg+xml' } },
      'request.validation_failed',
    ],
    ['toolset kind with text content', { ...text('x'), kind: 'toolset' }, 'request.validation_failed'],
    [
      'content kind with toolset content',
      { ...text('x'), content: { type: 'toolset', tools: [{ server: 's', name: 'n' }] } },
      'request.validation_failed',
    ],
    [
      'empty toolset',
      { kind: 'toolset', surface: 'mcp_tool_description', content: { type: 'toolset', tools: [] } },
      'request.validation_failed',
    ],
    ['bad tier', text('x', { options: { tier: 'turbo' } }), 'request.validation_failed'],
    ['capture not boolean', text('x', { options: { capture: 'yes' } }), 'request.validation_failed'],
    ['unknown option', text('x', { options: { verbose: true } }), 'request.validation_failed'],
    ['unknown context field', text('x', { context: { user: 'u' } }), 'request.validation_failed'],
    ['context value too long', text('x', { context: { agent_id: 'a'.repeat(256) } }), 'request.validation_failed'],
    ['empty detectors list', text('x', { options: { detectors: [] } }), 'request.validation_failed'],
    ['unknown detector', text('x', { options: { detectors: ['pii', 'mind_reading'] } }), 'scans.unknown_detector'],
    ['malformed policy_id', text('x', { options: { policy_id: 'default' } }), 'request.validation_failed'],
  ];
  it.each(cases)('%s', async (_name, body, code) => {
    const before = (await app.db.query('SELECT count(*)::int AS n FROM scans WHERE org_id = $1', [org.orgId])).rows[0]
      .n;
    const r = await scan(body);
    expectProblem(r, 400, code);
    const after = (await app.db.query('SELECT count(*)::int AS n FROM scans WHERE org_id = $1', [org.orgId])).rows[0].n;
    expect(after).toBe(before);
  });
  it('lists every problem with its path', async () => {
    const r = await scan({ kind: 'nope', surface: 'nope', content: { type: 'text', text: 1 } });
    const paths = r.body.errors.map((e: { path: string }) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['kind', 'surface', 'content.text']));
  });
  it('an unknown policy is 404 policies.not_found', async () => {
    expectProblem(
      await scan(text('x', { options: { policy_id: 'pol_01J0000000000000000000000Z' } })),
      404,
      'policies.not_found',
    );
  });
});

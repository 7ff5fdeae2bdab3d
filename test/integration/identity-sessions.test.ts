/**
 * SSO session tokens at the edges: refused tokens, an unreachable issuer, self-hosted deployments
 * (the built-in provider: no organization provisioning, 501 for organization create and delete), and
 * a provider failure during organization deletion finished later by its job.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as finishOrganizationDeletions from '../../jobs/finish-organization-deletions.ts';
import { createLogger } from '../../lib/logger.ts';
import { buildOrg, call, expectProblem, isolatedDatabase, startTestApp, type TestApp } from '../support/harness.ts';
import { startIssuer, type TestIssuer } from '../support/oidc-issuer.ts';
import { createUpload, evidence, localPath, putLocal } from './evidence-fixture.ts';
import { app, idp, me, newSubject, signUp, useIdentityApp } from './identity-fixture.ts';

useIdentityApp();

describe('refused session tokens (SaaS)', () => {
  it('a token for another audience, expired, or with a tampered signature is 401 auth.unauthenticated', async () => {
    const subject = newSubject();
    const tokens = [
      await idp.mint(subject, { set: { aud: 'https://elsewhere.test' } }),
      await idp.mint(subject, { set: { exp: Math.floor(Date.now() / 1000) - 3600 } }),
    ];
    const good = await idp.mint(subject);
    tokens.push(`${good.slice(0, -6)}${good.slice(-6) === 'AAAAAA' ? 'BBBBBB' : 'AAAAAA'}`);
    for (const token of tokens) {
      const r = await call(app, 'GET', '/v1/me', { key: token });
      expectProblem(r, 401, 'auth.unauthenticated');
      expect(r.text).not.toContain(token.split('.')[1]!.slice(0, 16));
    }
    expect((await me(good)).status).toBe(200);
  });

  it('a token naming an organization deleted here is organization-less, never re-provisioned', async () => {
    const owner = await signUp();
    expect((await call(app, 'DELETE', `/v1/organizations/${owner.orgId}`, { key: owner.token })).status).toBe(204);
    // the issuer still naming it (a stale membership there) provisions nothing
    idp.orgs.set(owner.externalOrgId, {
      id: owner.externalOrgId,
      display_name: 'Ghost',
      members: new Map([[owner.subject, { role: 'owner', email: null }]]),
    });
    const token = await idp.mint(owner.subject);
    expectProblem(await call(app, 'GET', '/v1/scans', { key: token }), 401, 'auth.unauthenticated');
    const { rowCount } = await app.db.query('SELECT 1 FROM organizations WHERE external_id = $1', [
      owner.externalOrgId,
    ]);
    expect(rowCount).toBe(0);
    idp.orgs.delete(owner.externalOrgId);
  });
});

describe('organization delete and files outside the database', () => {
  it("deletes the organization's evidence uploads from the local storage", async () => {
    const owner = await signUp();
    const { bytes, body } = evidence(64);
    const created = await createUpload(app, owner.token, body);
    expect(created.status, created.text).toBe(201);
    expect((await putLocal(app, localPath(created.body.upload_url), bytes)).status).toBeLessThan(300);
    const dir = path.join(app.config.DATA_DIR, 'evidence', owner.orgId);
    expect(existsSync(path.join(dir, created.body.storage_key))).toBe(true);
    expect((await call(app, 'DELETE', `/v1/organizations/${owner.orgId}`, { key: owner.token })).status).toBe(204);
    expect(existsSync(dir)).toBe(false);
  });
});

describe('organization delete when the provider fails', () => {
  it('answers 204 (the local deletion stands) and the job deletes the provider organization later', async () => {
    const owner = await signUp();
    idp.managementDown = true;
    try {
      expect((await call(app, 'DELETE', `/v1/organizations/${owner.orgId}`, { key: owner.token })).status).toBe(204);
    } finally {
      idp.managementDown = false;
    }
    expect(idp.orgs.has(owner.externalOrgId)).toBe(true);
    const pending = async () =>
      (
        await app.db.query('SELECT provider_deleted_at FROM deleted_organizations WHERE external_id = $1', [
          owner.externalOrgId,
        ])
      ).rows[0]?.provider_deleted_at as Date | null | undefined;
    expect(await pending()).toBeNull();
    const ctx = {
      db: app.db,
      clock: app.built.services.clock,
      logger: createLogger('silent'),
      metrics: app.built.services.metrics,
      config: app.config,
      touch: async () => undefined,
    };
    expect(await finishOrganizationDeletions.run(ctx)).toBeGreaterThanOrEqual(1);
    expect(idp.orgs.has(owner.externalOrgId)).toBe(false);
    expect(await pending()).toBeInstanceOf(Date);
  });
});

describe('self-hosted with an SSO issuer (the built-in provider)', () => {
  let hosted: TestApp;
  let issuer: TestIssuer;
  beforeAll(async () => {
    issuer = await startIssuer();
    const { OIDC_ISSUER, OIDC_AUDIENCE } = issuer.env();
    hosted = await startTestApp({
      env: { DATABASE_URL: await isolatedDatabase(), OIDC_ISSUER: OIDC_ISSUER!, OIDC_AUDIENCE: OIDC_AUDIENCE! },
    });
  });
  afterAll(async () => {
    await hosted?.close();
    await issuer?.close();
  });

  it('a token naming an organization the operator created (by its id) is a member of it; an unknown one is refused', async () => {
    const org = await buildOrg(hosted, 'Operator Org');
    const subject = newSubject();
    issuer.orgs.set(org.orgId, {
      id: org.orgId,
      display_name: 'Operator Org',
      members: new Map([[subject, { role: 'admin', email: null }]]),
    });
    const token = await issuer.mint(subject);
    const who = await call(hosted, 'GET', '/v1/me', { key: token });
    expect(who.body).toMatchObject({ type: 'user', org_id: org.orgId, role: 'admin', deployment_mode: 'self_hosted' });
    expect((await call(hosted, 'GET', '/v1/api-keys', { key: token })).status).toBe(200);

    const stranger = newSubject();
    issuer.orgs.set('idp-unknown-org', {
      id: 'idp-unknown-org',
      display_name: 'Unknown',
      members: new Map([[stranger, { role: 'owner', email: null }]]),
    });
    expectProblem(
      await call(hosted, 'GET', '/v1/api-keys', { key: await issuer.mint(stranger) }),
      401,
      'auth.unauthenticated',
    );
    const { rowCount } = await hosted.db.query("SELECT 1 FROM organizations WHERE external_id = 'idp-unknown-org'");
    expect(rowCount).toBe(0);
  });

  it('organization create and delete are 501 with their codes', async () => {
    const org = await buildOrg(hosted);
    const subject = newSubject();
    issuer.orgs.set(org.orgId, {
      id: org.orgId,
      display_name: 'x',
      members: new Map([[subject, { role: 'owner', email: null }]]),
    });
    const owner = await issuer.mint(subject);
    const orgless = await issuer.mint(newSubject());
    expectProblem(
      await call(hosted, 'POST', '/v1/organizations', { key: orgless, json: { display_name: 'Nope' } }),
      501,
      'onboarding.unsupported_in_self_hosted',
    );
    expectProblem(
      await call(hosted, 'DELETE', `/v1/organizations/${org.orgId}`, { key: owner }),
      501,
      'organizations.delete.unsupported_in_self_hosted',
    );
  });
});

describe('an unreachable issuer', () => {
  let lonely: TestApp;
  beforeAll(async () => {
    lonely = await startTestApp({
      env: {
        OIDC_ISSUER: 'http://127.0.0.1:9',
        OIDC_AUDIENCE: 'https://firewall.test/v1',
        OIDC_FETCH_TIMEOUT_MS: '500',
      },
    });
  });
  afterAll(async () => lonely?.close());

  it('is 503 auth.issuer_unreachable with Retry-After; API keys are unaffected', async () => {
    const token = await idp.mint(newSubject());
    const r = await call(lonely, 'GET', '/v1/me', { key: token });
    expectProblem(r, 503, 'auth.issuer_unreachable');
    expect(r.headers.get('retry-after')).toBeTruthy();
    const org = await buildOrg(lonely);
    expect((await call(lonely, 'GET', '/v1/me', { key: org.admin })).status).toBe(200);
  });
});

/**
 * A verified SSO session → its organization principal. The local organization and user rows are
 * provisioned here, on the first authenticated request of either (no ordering dependency on
 * GET /v1/me); concurrent first requests create one row of each (unique external id, unique
 * (organization, subject)). The local user row is authoritative once it exists: a role change or a
 * removal here takes effect at once, whatever the token still says.
 */
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import type { Db } from '../store/db.ts';
import { getOrgByExternalId, insertOrgIfAbsent, isOrgDeleted, type OrgRow } from '../store/orgs.ts';
import { provisionUser, type UserRow } from '../store/users.ts';
import { slugify } from './organizations.ts';
import type { SsoClaims } from './sso-tokens.ts';

/** What a session resolves to: a member of an organization, or organization-less and why. */
export type SessionMembership =
  | { kind: 'member'; org: OrgRow; user: UserRow }
  | { kind: 'none'; reason: 'no_org_claim' | 'unknown_org' | 'deleted_org' | 'removed' };

export interface SessionPrincipalDeps {
  db: Db;
  clock: Clock;
  /** SaaS: an organization the issuer names and we do not know is provisioned; self-hosted: refused. */
  provisionOrganizations: boolean;
}

/** The organization and user rows of a verified session, provisioned when missing. */
export async function resolveMembership(deps: SessionPrincipalDeps, claims: SsoClaims): Promise<SessionMembership> {
  if (!claims.orgId) return { kind: 'none', reason: 'no_org_claim' };
  const org = await findOrProvisionOrg(deps, claims.orgId, claims.orgName);
  if (org === 'deleted') return { kind: 'none', reason: 'deleted_org' };
  if (!org) return { kind: 'none', reason: 'unknown_org' };
  const now = deps.clock.now();
  const user = await provisionUser(deps.db, {
    id: newId('user', now.getTime()),
    org_id: org.id,
    external_subject: claims.subject,
    email: claims.email,
    role: claims.role ?? 'member',
    created_at: now,
  });
  if (user.removed_at) return { kind: 'none', reason: 'removed' };
  return { kind: 'member', org, user };
}

const SLUG_ATTEMPTS = 5;

async function findOrProvisionOrg(
  deps: SessionPrincipalDeps,
  externalId: string,
  name: string | null,
): Promise<OrgRow | 'deleted' | null> {
  const existing = await getOrgByExternalId(deps.db, externalId);
  if (existing) return existing;
  if (await isOrgDeleted(deps.db, externalId)) return 'deleted';
  if (!deps.provisionOrganizations) return null;
  const displayName = name ?? externalId.slice(0, 160);
  for (let attempt = 0; attempt < SLUG_ATTEMPTS; attempt += 1) {
    const now = deps.clock.now();
    const id = newId('org', now.getTime());
    // The slug is only a label: a random tail keeps concurrent provisioning of equal names apart.
    const slug = `${slugify(displayName)}-${id.slice(-6).toLowerCase()}`;
    const row = await insertOrgIfAbsent(deps.db, {
      id,
      slug,
      display_name: displayName,
      external_id: externalId,
      created_at: now,
    });
    if (row) return row;
  }
  throw new Error(`could not provision organization ${externalId}: slugs kept colliding`);
}

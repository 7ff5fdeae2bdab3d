import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import { countActiveKeys } from '../store/api-keys.ts';
import { withTransaction, type Queryable } from '../store/db.ts';
import { findOrgByRef, insertOrg, lockBootstraps, slugTaken, type OrgRow } from '../store/orgs.ts';
import { createApiKey, type ApiKeyDeps, type MintedKey } from './api-keys.ts';

/** A refusal an operator should read: printed by the CLI as is. */
export class OperatorError extends Error {}

/** `Acme Corp.` → `acme-corp`; never empty. */
export function slugify(displayName: string): string {
  const slug = displayName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return slug || 'org';
}

async function uniqueSlug(q: Queryable, displayName: string): Promise<string> {
  const base = slugify(displayName);
  for (let n = 1; ; n += 1) {
    const candidate = n === 1 ? base : `${base}-${n}`;
    if (!(await slugTaken(q, candidate))) return candidate;
  }
}

/**
 * Creates an organization. `externalId` is the identity provider's id for it; an organization created
 * only here (the CLI, self-hosted) is its own external id.
 */
export async function createOrganization(
  q: Queryable,
  clock: Clock,
  displayName: string,
  externalId?: string,
): Promise<OrgRow> {
  const now = clock.now();
  const id = newId('org', now.getTime());
  return insertOrg(q, {
    id,
    slug: await uniqueSlug(q, displayName),
    display_name: displayName,
    external_id: externalId ?? id,
    created_at: now,
  });
}

/**
 * Resolves an organization reference (id, slug or exact display name) for operator tooling.
 * @throws OperatorError when none or several match.
 */
export async function resolveOrganization(q: Queryable, ref: string): Promise<OrgRow> {
  const found = await findOrgByRef(q, ref);
  if (found.length === 0)
    throw new OperatorError(`no organization matches ${JSON.stringify(ref)} (by id, slug or display name)`);
  if (found.length > 1) {
    throw new OperatorError(
      `${found.length} organizations match ${JSON.stringify(ref)}; use an id: ${found.map((o) => o.id).join(', ')}`,
    );
  }
  return found[0]!;
}

export interface BootstrapResult {
  org: OrgRow;
  createdOrg: boolean;
  minted: MintedKey;
}

/**
 * Creates the first organization (if no organization has that name) and an admin API key for it.
 * Refuses when that organization already has active keys, unless `force`.
 * @throws OperatorError on refusal or an ambiguous name.
 */
export async function bootstrapOrganization(
  deps: ApiKeyDeps,
  displayName: string,
  force: boolean,
): Promise<BootstrapResult> {
  return withTransaction(deps.db, async (tx) => {
    await lockBootstraps(tx);
    const existing = await findOrgByRef(tx, displayName);
    if (existing.length > 1) {
      throw new OperatorError(
        `${existing.length} organizations are named ${JSON.stringify(displayName)}; use the keys commands with an org id`,
      );
    }
    let org = existing[0];
    const createdOrg = !org;
    if (org) {
      const active = await countActiveKeys(tx, org.id, deps.clock.now());
      if (active > 0 && !force) {
        throw new OperatorError(
          `organization ${JSON.stringify(org.display_name)} (${org.id}) already has ${active} active API key(s); refusing to mint another admin key. Re-run with --force to mint one anyway.`,
        );
      }
    } else {
      org = await createOrganization(tx, deps.clock, displayName);
    }
    const minted = await createApiKey(
      deps,
      org.id,
      { name: 'bootstrap admin', scopes: ['admin'], environment: 'live', no_expiry: false },
      { id: 'cli:bootstrap', requestId: null },
      tx,
    );
    return { org, createdOrg, minted };
  });
}

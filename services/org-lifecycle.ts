/**
 * Organization create and delete for SSO sessions (SaaS; self-hosted deployments answer 501 and
 * create organizations with the operator CLI). Create: in the identity provider first (the caller
 * becomes its owner), then the local organization and owner rows; the caller re-authenticates to get
 * a token naming it. Delete: guards, a tombstone (a stale token naming the organization is
 * organization-less from then on, never re-provisioned), every org-scoped row in batches, then the
 * provider's organization (retried by a job when the provider fails: the local deletion stands).
 */
import { createHash } from 'node:crypto';
import { Errors } from '../lib/errors.ts';
import { insertManagementAudit } from '../store/audit.ts';
import { withTransaction } from '../store/db.ts';
import { countPendingInvites } from '../store/invites.ts';
import {
  claimOrgCreation,
  completeOrgCreation,
  findCompletedCreation,
  releaseOrgCreation,
  retakeOrgCreation,
} from '../store/org-creations.ts';
import { purgeOrgData } from '../store/org-purge.ts';
import { getOrg, insertDeletedOrg, lockOrg, markProviderOrgDeleted, type OrgRow } from '../store/orgs.ts';
import { countOtherMembers, provisionUser } from '../store/users.ts';
import { newId } from '../lib/ids.ts';
import type { IdentityDeps } from './identity.ts';
import { IdentityProviderError, inProvider } from './identity-provider.ts';
import { createOrganization } from './organizations.ts';
import type { Principal, SessionIdentity } from './principal.ts';

export interface CreateOrganizationInput {
  display_name: string;
}

/** Who calls organization create: their session (if any) and organization principal (if any). */
export interface OnboardingCaller {
  session: SessionIdentity | undefined;
  principal: Principal | undefined;
  requestId: string | null;
}

export interface CreatedOrganization {
  org: OrgRow;
  /** The answer replays an earlier creation (Idempotency-Key). */
  replayed: boolean;
}

/** How long a creation holds its Idempotency-Key before another request may take it over. */
const CREATION_LOCK_MS = 60_000;

/**
 * Creates an organization owned by the calling session's user.
 * @throws ProblemError 501 self-hosted; 403 `onboarding.session_required` for an API key; 409
 * `onboarding.already_in_organization` for a session that is a member of one; 409 idempotency
 * conflicts; 502 `identity_provider.upstream_failure`.
 */
export async function createOrganizationForSession(
  deps: IdentityDeps,
  caller: OnboardingCaller,
  input: CreateOrganizationInput,
  idempotencyKey: string | undefined,
): Promise<CreatedOrganization> {
  if (deps.deploymentMode === 'self_hosted') throw Errors.onboardingUnsupported();
  const { session } = caller;
  if (!session) throw Errors.onboardingSessionRequired();
  if (caller.principal) throw Errors.onboardingAlreadyInOrganization();
  if (idempotencyKey === undefined)
    return { org: await create(deps, session, input, caller.requestId), replayed: false };

  const now = deps.clock.now();
  const requestHash = createHash('sha256')
    .update(JSON.stringify({ display_name: input.display_name }))
    .digest();
  const earlier = await findCompletedCreation(deps.db, session.subject, requestHash, now);
  if (earlier?.org_id) {
    const org = await getOrg(deps.db, earlier.org_id);
    if (org) return { org, replayed: true };
  }
  const lockedUntil = new Date(now.getTime() + CREATION_LOCK_MS);
  const claim = await claimOrgCreation(deps.db, {
    subject: session.subject,
    key: idempotencyKey,
    request_hash: requestHash,
    locked_until: lockedUntil,
    created_at: now,
    expires_at: new Date(now.getTime() + deps.idempotencyTtlHours * 3_600_000),
  });
  if (!claim.claimed) {
    const { existing } = claim;
    if (!existing.request_hash.equals(requestHash)) throw Errors.idempotencyKeyReused('request');
    if (existing.org_id) {
      const org = await getOrg(deps.db, existing.org_id);
      if (org) return { org, replayed: true };
    }
    const stale = existing.org_id !== null || existing.locked_until.getTime() <= now.getTime();
    if (
      !stale ||
      !(await retakeOrgCreation(deps.db, session.subject, idempotencyKey, existing.locked_until, lockedUntil))
    )
      throw Errors.idempotencyInProgress();
  }
  try {
    const org = await create(deps, session, input, caller.requestId, idempotencyKey);
    return { org, replayed: false };
  } catch (err) {
    await releaseOrgCreation(deps.db, session.subject, idempotencyKey).catch(() => undefined);
    throw err;
  }
}

async function create(
  deps: IdentityDeps,
  session: SessionIdentity,
  input: CreateOrganizationInput,
  requestId: string | null,
  idempotencyKey?: string,
): Promise<OrgRow> {
  const { externalId } = await inProvider(deps.logger, 'creating the organization', () =>
    deps.provider.createOrganization({
      displayName: input.display_name,
      owner: { subject: session.subject, email: session.email, role: 'owner' },
    }),
  );
  return withTransaction(deps.db, async (tx) => {
    const org = await createOrganization(tx, deps.clock, input.display_name, externalId ?? undefined);
    const now = deps.clock.now();
    const owner = await provisionUser(tx, {
      id: newId('user', now.getTime()),
      org_id: org.id,
      external_subject: session.subject,
      email: session.email,
      role: 'owner',
      created_at: now,
    });
    await insertManagementAudit(tx, org.id, {
      created: now,
      actorId: owner.id,
      requestId,
      resourceType: 'organization',
      resourceId: org.id,
      changeSummary: `organization created by its owner ${owner.id}`,
    });
    if (idempotencyKey !== undefined) await completeOrgCreation(tx, session.subject, idempotencyKey, org.id);
    return org;
  });
}

/**
 * Deletes the caller's organization and everything scoped to it.
 * @throws ProblemError 501 self-hosted; 404 for another organization's id; 409 for each failed guard.
 */
export async function deleteOwnOrganization(
  deps: IdentityDeps,
  principal: Principal,
  orgId: string,
  requestId: string | null,
): Promise<void> {
  if (deps.deploymentMode === 'self_hosted') throw Errors.organizationDeleteUnsupported();
  if (orgId !== principal.org_id) throw Errors.organizationNotFound(orgId);
  if (principal.type !== 'user' || principal.role !== 'owner') throw Errors.organizationDeleteNotOwner();
  const org = await withTransaction(deps.db, async (tx) => {
    // the organization row locked: no member joins and no invite is created while the guards hold
    const row = await lockOrg(tx, orgId);
    if (!row) throw Errors.organizationNotFound(orgId);
    const others = await countOtherMembers(tx, orgId, principal.actor_id);
    if (others > 0) throw Errors.organizationDeleteOtherMembers(others);
    const pending = await countPendingInvites(tx, orgId, deps.clock.now());
    if (pending > 0) throw Errors.organizationDeletePendingInvites(pending);
    await insertDeletedOrg(tx, row.external_id, deps.clock.now());
    return row;
  });
  // Every cached principal of the organization (keys, members) goes now, in every process.
  await deps.revocations.publish(orgId);
  const deleted = await purgeOrgData(deps.db, orgId);
  // Files after rows: a failure here leaves unreachable bytes (logged), never rows pointing at nothing.
  await deps
    .removeOrgFiles?.(orgId)
    .catch((err: unknown) =>
      deps.logger.error(
        { org_id: orgId, err: err instanceof Error ? err.message : String(err) },
        'could not delete the organization’s evidence files',
      ),
    );
  deps.logger.info(
    { org_id: orgId, actor_id: principal.actor_id, request_id: requestId, deleted },
    'organization deleted',
  );
  await deleteInProvider(deps, org.external_id);
}

/** Deletes the provider's organization and records it; a failure is logged and left to the retry job. */
export async function deleteInProvider(
  deps: Pick<IdentityDeps, 'db' | 'clock' | 'logger' | 'provider'>,
  externalId: string,
): Promise<boolean> {
  try {
    await deps.provider.deleteOrganization(externalId);
  } catch (err) {
    if (!(err instanceof IdentityProviderError)) throw err;
    deps.logger.warn(
      { err: err.message, external_id: externalId },
      'identity provider failed to delete an organization; will retry',
    );
    return false;
  }
  await markProviderOrgDeleted(deps.db, externalId, deps.clock.now());
  return true;
}

/**
 * Organization members (docs/identity.md): the list, a role change and a removal. Changes go to the
 * identity provider first, after the guards pass in a read; the guards are then checked again in
 * the transaction that writes, under locks on the organization's owners and the target row, so two
 * concurrent demotions of two owners cannot leave none. After the commit the member's cached
 * principal is dropped in every process: the change takes effect at once.
 */
import { Errors, ProblemError } from '../lib/errors.ts';
import { fetchPage, type Page } from '../lib/keyset-page.ts';
import { insertManagementAudit } from '../store/audit.ts';
import { withTransaction, type Queryable } from '../store/db.ts';
import { getOrg, type OrgRow } from '../store/orgs.ts';
import {
  getMember,
  listMembers,
  lockOwners,
  markMemberRemoved,
  setMemberRole,
  type MemberPosition,
  type UserRole,
  type UserRow,
} from '../store/users.ts';
import type { IdentityDeps } from './identity.ts';
import { inProvider } from './identity-provider.ts';
import type { Principal } from './principal.ts';

export { USER_ROLES } from '../store/users.ts';

export interface ChangeMemberRoleInput {
  role: UserRole;
}

/** Who changes a membership: their principal and the request id (audit). */
export interface MemberCaller {
  principal: Principal;
  requestId: string | null;
}

/** One page of the organization's active members, newest first (created_at, then id, descending). */
export async function listOrgMembers(
  deps: Pick<IdentityDeps, 'db'>,
  orgId: string,
  after: MemberPosition | undefined,
  limit: number,
): Promise<Page<UserRow>> {
  return fetchPage(limit, (n) => listMembers(deps.db, orgId, after, n));
}

/**
 * Sets a member's role; the same role is a no-op (no provider call, no audit row).
 * @throws ProblemError 404 `users.not_found`; 403 `users.owner_required`; 409 `users.last_owner`;
 * 502 `identity_provider.upstream_failure` (nothing changed here).
 */
export async function changeMemberRole(
  deps: IdentityDeps,
  caller: MemberCaller,
  userId: string,
  input: ChangeMemberRoleInput,
): Promise<UserRow> {
  const orgId = caller.principal.org_id;
  const { org, target } = await withTransaction(deps.db, (tx) => checkRoleChange(tx, caller, userId, input.role));
  if (target.role === input.role) return target;

  await inProvider(deps.logger, 'changing the role', () =>
    deps.provider.setRole(org.external_id, target.external_subject, input.role),
  );

  const restore = () => deps.provider.setRole(org.external_id, target.external_subject, target.role);
  const { row, changed } = await undoingOnFailure(deps, restore, () =>
    withTransaction(deps.db, async (tx) => {
      const { target: now } = await checkRoleChange(tx, caller, userId, input.role);
      if (now.role === input.role) return { row: now, changed: false };
      const updated = await setMemberRole(tx, orgId, userId, input.role);
      await insertManagementAudit(tx, orgId, {
        created: deps.clock.now(),
        actorId: caller.principal.actor_id,
        requestId: caller.requestId,
        resourceType: 'user',
        resourceId: userId,
        changeSummary: `role changed from ${now.role} to ${input.role}`,
      });
      return { row: updated, changed: true };
    }),
  );
  if (changed) await deps.revocations.publish(userId);
  return row;
}

/**
 * Removes a member: the row stays, marked removed (their stale session tokens are refused). Removing
 * yourself is allowed unless you are the last owner.
 * @throws ProblemError 404 `users.not_found`; 403 `users.owner_required`; 409 `users.last_owner`;
 * 502 `identity_provider.upstream_failure` (nothing changed here).
 */
export async function removeMember(deps: IdentityDeps, caller: MemberCaller, userId: string): Promise<void> {
  const orgId = caller.principal.org_id;
  const { org, target } = await withTransaction(deps.db, (tx) => checkRemoval(tx, caller, userId));

  await inProvider(deps.logger, 'removing the member', () =>
    deps.provider.removeMember(org.external_id, target.external_subject),
  );

  const restore = () =>
    deps.provider.addMember(org.external_id, {
      subject: target.external_subject,
      email: target.email,
      role: target.role,
    });
  await undoingOnFailure(deps, restore, () =>
    withTransaction(deps.db, async (tx) => {
      await checkRemoval(tx, caller, userId);
      const now = deps.clock.now();
      await markMemberRemoved(tx, orgId, userId, now);
      await insertManagementAudit(tx, orgId, {
        created: now,
        actorId: caller.principal.actor_id,
        requestId: caller.requestId,
        resourceType: 'user',
        resourceId: userId,
        changeSummary: 'member removed',
      });
    }),
  );
  await deps.revocations.publish(userId);
}

/** An owner of the organization signed in as themselves (an API key is never one, whatever its scopes). */
function isOwner(p: Principal): boolean {
  return p.type === 'user' && p.role === 'owner';
}

interface Checked {
  org: OrgRow;
  target: UserRow;
}

/**
 * The owners locked, then the target row: the organization and the member, or the guard's error.
 * `tx` must be a transaction (the locks hold until it ends).
 */
async function lockTarget(tx: Queryable, orgId: string, userId: string): Promise<Checked & { owners: string[] }> {
  const org = await getOrg(tx, orgId);
  if (!org) throw Errors.userNotFound(userId);
  const owners = await lockOwners(tx, orgId);
  const target = await getMember(tx, orgId, userId, true);
  if (!target) throw Errors.userNotFound(userId);
  return { org, target, owners };
}

async function checkRoleChange(tx: Queryable, caller: MemberCaller, userId: string, role: UserRole): Promise<Checked> {
  const { org, target, owners } = await lockTarget(tx, caller.principal.org_id, userId);
  if (target.role === role) return { org, target };
  if ((role === 'owner' || target.role === 'owner') && !isOwner(caller.principal)) throw Errors.ownerRequired();
  if (target.role === 'owner' && !owners.some((id) => id !== target.id)) throw Errors.lastOwner();
  return { org, target };
}

async function checkRemoval(tx: Queryable, caller: MemberCaller, userId: string): Promise<Checked> {
  const { org, target, owners } = await lockTarget(tx, caller.principal.org_id, userId);
  if (target.role === 'owner' && !isOwner(caller.principal)) throw Errors.ownerRequired();
  if (target.role === 'owner' && !owners.some((id) => id !== target.id)) throw Errors.lastOwner();
  return { org, target };
}

/**
 * Runs the local write that follows a provider change; when it fails (a guard that no longer holds
 * under the locks: a concurrent change won), the provider change is undone, best effort, so the two
 * sides agree again. Not when the member is gone meanwhile (404): that removal stands in the provider.
 */
async function undoingOnFailure<T>(deps: IdentityDeps, undo: () => Promise<void>, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (!(err instanceof ProblemError && err.status === 404))
      await undo().catch((undoErr: unknown) =>
        deps.logger.warn(
          { err: undoErr instanceof Error ? undoErr.message : String(undoErr) },
          'could not undo an identity provider change after the local write failed',
        ),
      );
    throw err;
  }
}

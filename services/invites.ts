/**
 * Invites (docs/identity.md): an admin invites an email address with a role; the invitee accepts
 * with an SSO session whose verified email matches. The token is 32 random bytes (base64url, 43
 * characters), handed out once inside the accept URL of the create answer; only its SHA-256 is
 * stored. Accept adds the member in the identity provider first (a failure there writes nothing
 * here, so a retry is safe), then the local member row and the invite's acceptance in one transaction.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Errors } from '../lib/errors.ts';
import { newId } from '../lib/ids.ts';
import { fetchPage, type Page } from '../lib/keyset-page.ts';
import { insertManagementAudit } from '../store/audit.ts';
import { withTransaction } from '../store/db.ts';
import * as invites from '../store/invites.ts';
import type { InviteRow } from '../store/invites.ts';
import { getOrg, lockOrg, type OrgRow } from '../store/orgs.ts';
import { addMemberRow, findUserBySubject, type UserRow } from '../store/users.ts';
import type { IdentityDeps } from './identity.ts';
import { inProvider } from './identity-provider.ts';
import type { Principal, SessionIdentity } from './principal.ts';

/** A validated create body (api/routes/invites/schema.ts checks it). */
export interface CreateInviteInput {
  email: string;
  role: 'admin' | 'member';
}

/** Who performs a change: the calling principal's actor id and the request id. */
export interface InviteActor {
  id: string;
  requestId: string | null;
}

export interface CreatedInvite {
  invite: InviteRow;
  /** `${publicUrl}/dashboard/invites/accept#token=<token>`: the only place the token ever appears. */
  acceptUrl: string;
}

/** Who accepts an invite: their session (if a session token) and organization principal (if any). */
export interface InviteAcceptCaller {
  session: SessionIdentity | undefined;
  principal: Principal | undefined;
  requestId: string | null;
}

export interface AcceptedInvite {
  user: UserRow;
  org: OrgRow;
  role: 'admin' | 'member';
}

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;
const HOUR_MS = 3_600_000;

const hashToken = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();
const sameEmail = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/**
 * Creates an invite expiring INVITE_TTL_HOURS from now. When SMTP is configured the email is sent
 * after the commit, off the response path: the answer is the same either way, and a failed send is
 * logged without the URL (it carries the token).
 */
export async function createInvite(
  deps: IdentityDeps,
  orgId: string,
  input: CreateInviteInput,
  actor: InviteActor,
): Promise<CreatedInvite> {
  const token = randomBytes(32).toString('base64url');
  const now = deps.clock.now();
  const { invite, orgName } = await withTransaction(deps.db, async (tx) => {
    const org = await lockOrg(tx, orgId, 'share');
    if (!org) throw Errors.organizationNotFound(orgId);
    const invite = await invites.insertInvite(
      tx,
      {
        id: newId('invite', now.getTime()),
        org_id: orgId,
        email: input.email,
        role: input.role,
        created_at: now,
        expires_at: new Date(now.getTime() + deps.inviteTtlHours * HOUR_MS),
        created_by: actor.id,
      },
      hashToken(token),
    );
    await insertManagementAudit(tx, orgId, {
      created: now,
      actorId: actor.id,
      requestId: actor.requestId,
      resourceType: 'invite',
      resourceId: invite.id,
      changeSummary: `invite created for ${input.email} as ${input.role}`,
    });
    return { invite, orgName: org.display_name };
  });
  const acceptUrl = `${deps.publicUrl}/dashboard/invites/accept#token=${token}`;
  if (deps.mailer) {
    deps.mailer
      .send({ to: invite.email, organization: orgName, role: invite.role, acceptUrl, expiresAt: invite.expires_at })
      .catch((err: unknown) =>
        deps.logger.warn(
          // never the URL: it carries the token
          { invite_id: invite.id, org_id: orgId, err: err instanceof Error ? err.message : String(err) },
          'invite email could not be sent',
        ),
      );
  }
  return { invite, acceptUrl };
}

/** One page of the organization's actionable invites (pending, unexpired), newest first. */
export function listInvites(
  deps: IdentityDeps,
  orgId: string,
  beforeId: string | undefined,
  limit: number,
): Promise<Page<InviteRow>> {
  const now = deps.clock.now();
  return fetchPage(limit, (n) => invites.listActionableInvites(deps.db, orgId, now, beforeId, n));
}

/**
 * Revokes an invite. Revoking one already revoked or accepted changes nothing (and is no error).
 * @throws ProblemError 404 `invites.not_found` when the id is unknown in this organization.
 */
export async function revokeInvite(deps: IdentityDeps, orgId: string, id: string, actor: InviteActor): Promise<void> {
  const now = deps.clock.now();
  await withTransaction(deps.db, async (tx) => {
    const invite = await invites.getInvite(tx, orgId, id);
    if (!invite) throw Errors.inviteNotFoundById(id);
    if (!(await invites.revokeInvite(tx, orgId, id, now))) return;
    await insertManagementAudit(tx, orgId, {
      created: now,
      actorId: actor.id,
      requestId: actor.requestId,
      resourceType: 'invite',
      resourceId: id,
      changeSummary: `invite for ${invite.email} as ${invite.role} revoked`,
    });
  });
}

/**
 * Accepts an invite for the calling SSO session. Checks, in order: the token opens a pending invite
 * (404), unexpired (410), the caller has a verified session email (403), it is the invite's (403),
 * the caller is not already a member (409); then the provider (502, nothing written here), then the
 * local member row, the acceptance and the audit row in one transaction.
 */
export async function acceptInvite(
  deps: IdentityDeps,
  caller: InviteAcceptCaller,
  token: string,
): Promise<AcceptedInvite> {
  if (!TOKEN_SHAPE.test(token)) throw Errors.inviteNotFound();
  const tokenHash = hashToken(token);
  const invite = await invites.findInviteByTokenHash(deps.db, tokenHash);
  if (!invite || invite.revoked_at || invite.accepted_at) throw Errors.inviteNotFound();
  if (invite.expires_at.getTime() <= deps.clock.now().getTime()) throw Errors.inviteExpired();
  const { session } = caller;
  if (!session?.email) throw Errors.invitePrincipalEmailUnavailable();
  if (!sameEmail(session.email, invite.email)) throw Errors.inviteEmailMismatch();
  const existing = await findUserBySubject(deps.db, invite.org_id, session.subject);
  if (existing && !existing.removed_at) throw Errors.inviteAlreadyMember();
  const org = await getOrg(deps.db, invite.org_id);
  if (!org) throw Errors.inviteNotFound();

  await inProvider(
    deps.logger,
    'adding an invited member',
    () =>
      deps.provider.addMember(org.external_id, { subject: session.subject, email: session.email, role: invite.role }),
    Errors.inviteUpstreamFailure,
    { invite_id: invite.id },
  );

  const user = await withTransaction(deps.db, async (tx) => {
    const locked = await invites.findInviteByTokenHash(tx, tokenHash, true);
    if (!locked || locked.revoked_at || locked.accepted_at) throw Errors.inviteNotFound();
    // share-locked like on create: an organization delete's member guard sees this member or runs first
    if (!(await lockOrg(tx, locked.org_id, 'share'))) throw Errors.inviteNotFound();
    const now = deps.clock.now();
    const user = await addMemberRow(tx, {
      id: newId('user', now.getTime()),
      org_id: locked.org_id,
      external_subject: session.subject,
      email: session.email,
      role: locked.role,
      created_at: now,
    });
    if (!user) throw Errors.inviteAlreadyMember();
    await invites.markInviteAccepted(tx, locked.org_id, locked.id, user.id, now);
    await insertManagementAudit(tx, locked.org_id, {
      created: now,
      actorId: user.id,
      requestId: caller.requestId,
      resourceType: 'invite',
      resourceId: locked.id,
      changeSummary: `invite accepted: ${user.id} joined as ${locked.role}`,
    });
    return user;
  });
  // A cached "organization-less" or "removed" answer for this person must not outlive the accept.
  await deps.revocations.publish(user.id);
  return { user, org, role: invite.role };
}

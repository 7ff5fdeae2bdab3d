import { useCallback, useId, useState, type FormEvent } from 'react';
import type { Client, components } from './api.ts';
import { ConfirmButton } from './confirm-button.tsx';
import { when } from './format.ts';
import { OneTimeSecret } from './one-time-secret.tsx';
import { ProblemView } from './problem-view.tsx';
import { useSsoConfig } from './use-sso-config.ts';
import { usePaged } from './use-paged.ts';

/** A pending invite (`GET /v1/invites`): never its token. */
type Invite = components['schemas']['Invite'];
/** The create answer: the invite and its one-time accept URL (which carries the token). */
type CreatedInvite = components['schemas']['CreatedInvite'];
type InviteRole = Invite['role'];

/** The roles an invite can grant (never owner); a Record over the API's enum, so a new one stops the build. */
const INVITE_ROLES: Record<InviteRole, string> = { member: 'member', admin: 'admin' };

/**
 * The invites: the pending ones (not accepted, revoked or expired; newest first) with **Revoke**, and
 * a form to invite someone by email as admin or member. The accept link is shown once: it carries the
 * invite's token, which the API never shows again (with email configured, the invitee gets it too).
 * Accepting needs SSO sign-in on the dashboard (invite-accept.tsx): without it the form is not offered,
 * and the page says why.
 */
export function MemberInvites({ client }: { client: Client }) {
  const fetchPage = useCallback((cursor?: string) => client.invites.list(cursor ? { cursor } : {}), [client]);
  const invites = usePaged(fetchPage);
  const [created, setCreated] = useState<CreatedInvite | null>(null);
  // undefined while config.json is read; false: this deployment has no SSO sign-in (or it cannot be read).
  const config = useSsoConfig();
  const ssoOffered = config.error !== null ? false : config.sso === undefined ? undefined : config.sso !== null;

  return (
    <section aria-labelledby="invites-title" className="invites">
      <h3 id="invites-title">Invites</h3>
      <p className="hint">
        An invite is accepted by signing in with SSO as the invited email and opening its link, within its expiry.
      </p>
      {created && (
        <OneTimeSecret
          heading={
            <>
              Invite for <strong>{created.invite.email}</strong> as {created.invite.role} created. Send them this link.
            </>
          }
          secret={created.accept_url}
          onDismiss={() => setCreated(null)}
        />
      )}
      {invites.error !== null && <ProblemView error={invites.error} />}
      {invites.items === null && invites.error === null && <p>Loading…</p>}
      {invites.items && <InviteTable invites={invites.items} client={client} onChanged={invites.reload} />}
      {invites.next && (
        <button type="button" onClick={invites.loadMore} disabled={invites.loading}>
          Load more
        </button>
      )}
      {ssoOffered === true && (
        <NewInvite
          client={client}
          onCreated={(c) => {
            setCreated(c);
            invites.reload();
          }}
        />
      )}
      {ssoOffered === false && (
        <p className="notice" data-testid="invites-unavailable">
          Inviting is not offered: this deployment has no SSO sign-in for the dashboard (<code>OIDC_ISSUER</code>,{' '}
          <code>OIDC_AUDIENCE</code> and <code>DASHBOARD_OIDC_CLIENT_ID</code>), and an invite is accepted by signing in
          with SSO as the invited email. Give people API keys instead, or configure SSO.
        </p>
      )}
    </section>
  );
}

/** The pending invites, each with Revoke (after a confirmation). */
function InviteTable({ invites, client, onChanged }: { invites: Invite[]; client: Client; onChanged: () => void }) {
  if (invites.length === 0) return <p className="empty">No pending invites.</p>;
  return (
    <table className="invites-table">
      <thead>
        <tr>
          <th scope="col">Email</th>
          <th scope="col">Role</th>
          <th scope="col">Sent</th>
          <th scope="col">Expires</th>
          <th scope="col">Revoke</th>
        </tr>
      </thead>
      <tbody>
        {invites.map((invite) => (
          <tr key={invite.id} data-invite-id={invite.id}>
            <td>{invite.email}</td>
            <td>{invite.role}</td>
            <td>{when(invite.created_at)}</td>
            <td>{when(invite.expires_at)}</td>
            <td>
              <ConfirmButton
                label="Revoke"
                confirmLabel="Confirm revoke"
                question={`Revoke the invite for ${invite.email}? Its link stops working.`}
                onConfirm={async () => {
                  await client.invites.revoke(invite.id);
                  onChanged();
                }}
              />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Inviting someone: their email and the role they will join with. */
function NewInvite({ client, onCreated }: { client: Client; onCreated: (created: CreatedInvite) => void }) {
  const ids = useId();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<InviteRole>('member');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  async function create(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onCreated(await client.invites.create({ email: email.trim(), role }));
      setEmail('');
      setRole('member');
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="new-invite" onSubmit={create} aria-labelledby={`${ids}-title`}>
      <h4 id={`${ids}-title`}>Invite someone</h4>
      <div className="row">
        <div>
          <label htmlFor={`${ids}-email`}>Email</label>
          <input
            id={`${ids}-email`}
            type="email"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            maxLength={320}
            required
          />
        </div>
        <div>
          <label htmlFor={`${ids}-role`}>Invite role</label>
          <select id={`${ids}-role`} value={role} onChange={(e) => setRole(e.target.value as InviteRole)}>
            {Object.entries(INVITE_ROLES).map(([value, text]) => (
              <option key={value} value={value}>
                {text}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" disabled={busy || email.trim() === ''}>
          {busy ? 'Inviting…' : 'Send invite'}
        </button>
      </div>
      {error !== null && <ProblemView error={error} />}
    </form>
  );
}

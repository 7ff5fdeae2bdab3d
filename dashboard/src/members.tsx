import { useCallback, useId, useState, type FormEvent } from 'react';
import type { Client, Principal, Session, components } from './api.ts';
import { ConfirmButton } from './confirm-button.tsx';
import { when } from './format.ts';
import { MemberInvites } from './member-invites.tsx';
import { ProblemView } from './problem-view.tsx';
import { usePaged } from './use-paged.ts';
import './members.css';

/** A member of the organization (`GET /v1/users`). */
type User = components['schemas']['User'];
type Role = User['role'];

/** Every role a member can hold, as the select lists them; a Record over the API's enum, so a new role stops the build. */
const ROLES: Record<Role, string> = {
  owner: 'owner',
  admin: 'admin',
  member: 'member',
};

/**
 * The Members page: the organization's members (`GET /v1/users`, newest first) with their role,
 * changed with a select and **Save** (`PATCH /v1/users/{id}`), and **Remove** after a confirmation
 * (`DELETE`); below, the pending invites. Members exist for organizations whose people sign in with
 * SSO: they arrive by their first sign-in or by accepting an invite. The API's guards (only an owner
 * changes owners, the last owner stays) answer as problems shown on the row.
 */
export function Members({ client, principal }: Session) {
  const fetchPage = useCallback((cursor?: string) => client.users.list(cursor ? { cursor } : {}), [client]);
  const members = usePaged(fetchPage);

  return (
    <section aria-labelledby="members-title">
      <h2 id="members-title">Members</h2>
      <p className="hint">
        People of this organization who sign in with SSO. Owners and admins manage the organization; members read it and
        scan. Only an owner, signed in as themselves, grants or changes the owner role
        {principal.type === 'api_key' ? ' (an API key never can)' : ''}; the last owner stays.
      </p>
      {members.error !== null && <ProblemView error={members.error} />}
      {members.items === null && members.error === null && <p>Loading…</p>}
      {members.items && (
        <MemberTable members={members.items} principal={principal} client={client} onChanged={members.reload} />
      )}
      {members.next && (
        <button type="button" onClick={members.loadMore} disabled={members.loading}>
          Load more
        </button>
      )}
      <MemberInvites client={client} />
    </section>
  );
}

/** The members, one row each; `principal` marks the member signed in. */
function MemberTable(props: { members: User[]; principal: Principal; client: Client; onChanged: () => void }) {
  if (props.members.length === 0)
    return (
      <div className="empty members-empty">
        <p>This organization has no members yet.</p>
        <p>
          Members arrive by signing in with the organization&apos;s SSO (their first sign-in adds them) or by accepting
          an invite sent below. An organization used only with API keys has none.
        </p>
      </div>
    );
  return (
    <table className="members-table">
      <thead>
        <tr>
          <th scope="col">Email</th>
          <th scope="col">Role</th>
          <th scope="col">Joined</th>
          <th scope="col">Remove</th>
        </tr>
      </thead>
      <tbody>
        {props.members.map((user) => (
          <tr key={user.id} data-user-id={user.id}>
            <td>
              {user.email ?? <span className="hint">no email ({user.id})</span>}
              {user.id === props.principal.actor_id && <span className="tag">you</span>}
            </td>
            <td>
              <RoleForm user={user} client={props.client} onChanged={props.onChanged} />
            </td>
            <td>{when(user.created_at)}</td>
            <td>
              <ConfirmButton
                label="Remove"
                confirmLabel="Confirm remove"
                question={`Remove ${user.email ?? user.id}? Their sessions stop working at once.`}
                onConfirm={async () => {
                  await props.client.users.delete(user.id);
                  props.onChanged();
                }}
              />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A member's role: a labeled select and Save (enabled once it differs); the API's refusal is shown below. */
function RoleForm({ user, client, onChanged }: { user: User; client: Client; onChanged: () => void }) {
  const id = useId();
  const [role, setRole] = useState<Role>(user.role);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  async function save(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await client.users.update(user.id, { role });
      onChanged();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="role-form" onSubmit={save}>
      <label htmlFor={id} className="members-hidden-label">
        Role of {user.email ?? user.id}
      </label>
      <select id={id} value={role} onChange={(e) => setRole(e.target.value as Role)}>
        {Object.entries(ROLES).map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
      <button type="submit" disabled={busy || role === user.role}>
        {busy ? 'Saving…' : 'Save'}
      </button>
      {error !== null && <ProblemView error={error} />}
    </form>
  );
}

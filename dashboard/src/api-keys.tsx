import { useCallback, useEffect, useState } from 'react';
import type { ApiKey, ApiKeyWithSecret, Client, Principal } from './api.ts';
import { NewApiKey, NewSecret } from './new-api-key.tsx';
import { ProblemView } from './problem-view.tsx';

/** One page of keys and the cursor of the next (null: none). */
interface Listing {
  keys: ApiKey[];
  next: string | null;
}

/** A date-time as this browser's locale shows it, or `fallback` when there is none. */
const when = (iso: string | null, fallback: string) => (iso ? new Date(iso).toLocaleString() : fallback);

/**
 * The API keys page: the organization's keys (`GET /v1/api-keys`, a page at a time), a form to create
 * one (its secret shown once), and revoking a key after a confirmation.
 */
export function ApiKeys({ client, principal }: { client: Client; principal: Principal }) {
  const [listing, setListing] = useState<Listing | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [created, setCreated] = useState<ApiKeyWithSecret | null>(null);

  const load = useCallback(
    async (cursor?: string) => {
      setError(null);
      try {
        const page = await client.apiKeys.list(cursor ? { cursor } : {});
        setListing((shown) => ({
          keys: cursor && shown ? [...shown.keys, ...page.data] : page.data,
          next: page.next_cursor,
        }));
      } catch (err) {
        setError(err);
      }
    },
    [client],
  );
  useEffect(() => void load(), [load]);

  const onCreated = (key: ApiKeyWithSecret) => {
    setCreated(key);
    void load();
  };

  return (
    <section aria-labelledby="api-keys-title">
      <h2 id="api-keys-title">API keys</h2>
      {created && <NewSecret created={created} onDismiss={() => setCreated(null)} />}
      {error !== null && <ProblemView error={error} />}
      {listing === null && error === null && <p>Loading…</p>}
      {listing && (
        <KeyTable keys={listing.keys} self={principal.actor_id} client={client} onChanged={() => void load()} />
      )}
      {listing?.next && (
        <button type="button" onClick={() => void load(listing.next!)}>
          Load more
        </button>
      )}
      <NewApiKey client={client} onCreated={onCreated} />
    </section>
  );
}

/** The keys, newest first as the API lists them; `self` marks the key signed in with. */
function KeyTable(props: { keys: ApiKey[]; self: string | null; client: Client; onChanged: () => void }) {
  if (props.keys.length === 0) return <p className="empty">This organization has no API keys yet.</p>;
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Key</th>
          <th scope="col">Scopes</th>
          <th scope="col">Created</th>
          <th scope="col">Expires</th>
          <th scope="col">Last used</th>
          <th scope="col">Status</th>
        </tr>
      </thead>
      <tbody>
        {props.keys.map((key) => (
          <tr key={key.id} data-key-id={key.id}>
            <td>
              {key.name}
              {key.id === props.self && <span className="tag">this session</span>}
            </td>
            <td>
              <code>
                {key.prefix}_…{key.last_four}
              </code>
            </td>
            <td>{key.scopes.join(' ')}</td>
            <td>{when(key.created_at, '')}</td>
            <td>{when(key.expires_at, 'never')}</td>
            <td>{when(key.last_used_at, 'never')}</td>
            <td>
              {key.revoked_at ? (
                `revoked ${when(key.revoked_at, '')}`
              ) : (
                <Revoke apiKey={key} client={props.client} onRevoked={props.onChanged} />
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The revoke button, which asks for a confirmation before `POST /v1/api-keys/{id}:revoke`. */
function Revoke({ apiKey, client, onRevoked }: { apiKey: ApiKey; client: Client; onRevoked: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<unknown>(null);
  async function revoke() {
    setError(null);
    try {
      await client.apiKeys.revoke(apiKey.id);
      onRevoked();
    } catch (err) {
      setError(err);
    }
  }
  if (!confirming)
    return (
      <button type="button" onClick={() => setConfirming(true)}>
        Revoke
      </button>
    );
  return (
    <div className="confirm">
      <span>Revoke {apiKey.name}? Requests with it fail at once.</span>
      <button type="button" className="danger" onClick={() => void revoke()} autoFocus>
        Confirm revoke
      </button>
      <button type="button" onClick={() => setConfirming(false)}>
        Cancel
      </button>
      {error !== null && <ProblemView error={error} />}
    </div>
  );
}

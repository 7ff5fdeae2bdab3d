import { useCallback, useState } from 'react';
import type { ApiKey, ApiKeyWithSecret, Client, Principal } from './api.ts';
import { ConfirmButton } from './confirm-button.tsx';
import { when } from './format.ts';
import { NewApiKey } from './new-api-key.tsx';
import { OneTimeSecret } from './one-time-secret.tsx';
import { ProblemView } from './problem-view.tsx';
import { usePaged } from './use-paged.ts';

/** What a key can do now: `expiring` is still active, within EXPIRING_DAYS of its expiry. */
export type KeyStatus = 'active' | 'expiring' | 'expired' | 'revoked';

/** How close to its expiry a key is called `expiring`, so it is rotated in time. */
export const EXPIRING_DAYS = 7;
const DAY_MS = 86_400_000;

/** A key's status at `now`: revoked wins over expired (the API refuses it either way, revoked first). */
export function keyStatus(key: ApiKey, now: number): KeyStatus {
  if (key.revoked_at) return 'revoked';
  if (key.expires_at === null || key.expires_at === undefined) return 'active';
  const expires = Date.parse(key.expires_at);
  if (expires <= now) return 'expired';
  return expires - now <= EXPIRING_DAYS * DAY_MS ? 'expiring' : 'active';
}

/** A secret just minted: by a create, or by a rotation (which revoked `replaced`). */
interface Minted {
  key: ApiKeyWithSecret;
  replaced?: ApiKey;
}

/**
 * The API keys page: the organization's keys (`GET /v1/api-keys`, a page at a time), a form to create
 * one, rotating a key (a successor with the same name, scopes and expiry; the old one is revoked at
 * once) and revoking one, each after a confirmation. A new secret is shown once.
 */
export function ApiKeys({ client, principal }: { client: Client; principal: Principal }) {
  const fetchPage = useCallback((cursor?: string) => client.apiKeys.list(cursor ? { cursor } : {}), [client]);
  const keys = usePaged(fetchPage);
  const [minted, setMinted] = useState<Minted | null>(null);

  const onMinted = (m: Minted) => {
    setMinted(m);
    keys.reload();
  };

  return (
    <section aria-labelledby="api-keys-title">
      <h2 id="api-keys-title">API keys</h2>
      {minted && (
        <OneTimeSecret
          heading={
            minted.replaced ? (
              <>
                <strong>{minted.key.name}</strong> rotated: the old key is revoked. This is its successor&apos;s secret.
              </>
            ) : (
              <>
                <strong>{minted.key.name}</strong> created.
              </>
            )
          }
          secret={minted.key.secret}
          onDismiss={() => setMinted(null)}
        />
      )}
      {keys.error !== null && <ProblemView error={keys.error} />}
      {keys.items === null && keys.error === null && <p>Loading…</p>}
      {keys.items && (
        <KeyTable
          keys={keys.items}
          self={principal.actor_id}
          client={client}
          onMinted={onMinted}
          onChanged={keys.reload}
        />
      )}
      {keys.next && (
        <button type="button" onClick={keys.loadMore} disabled={keys.loading}>
          Load more
        </button>
      )}
      <NewApiKey client={client} onCreated={(key) => onMinted({ key })} />
    </section>
  );
}

/** The keys, newest first as the API lists them; `self` marks the key signed in with. */
function KeyTable(props: {
  keys: ApiKey[];
  self: string | null;
  client: Client;
  onMinted: (m: Minted) => void;
  onChanged: () => void;
}) {
  const { client } = props;
  const now = Date.now();
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
          <th scope="col">Actions</th>
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
            <td>{when(key.created_at)}</td>
            <td>{when(key.expires_at, 'never')}</td>
            <td>{when(key.last_used_at, 'never')}</td>
            <td>
              <KeyStatusBadge status={keyStatus(key, now)} />
            </td>
            <td>
              {key.revoked_at ? (
                `revoked ${when(key.revoked_at)}`
              ) : (
                <div className="row">
                  <ConfirmButton
                    label="Rotate"
                    confirmLabel="Confirm rotate"
                    question={`Rotate ${key.name}? The old key stops working at once.`}
                    onConfirm={async () => props.onMinted({ key: await client.apiKeys.rotate(key.id), replaced: key })}
                  />
                  <ConfirmButton
                    label="Revoke"
                    confirmLabel="Confirm revoke"
                    question={`Revoke ${key.name}? Requests with it fail at once.`}
                    onConfirm={async () => {
                      await client.apiKeys.revoke(key.id);
                      props.onChanged();
                    }}
                  />
                </div>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const STATUS_TITLES: Record<KeyStatus, string> = {
  active: 'Accepted by the API.',
  expiring: `Accepted, but expires within ${EXPIRING_DAYS} days: rotate it.`,
  expired: 'Past its expiry: the API refuses it.',
  revoked: 'Revoked: the API refuses it.',
};

/** A key's status as a badge, its meaning in the title. */
function KeyStatusBadge({ status }: { status: KeyStatus }) {
  return (
    <span className={`key-status key-status-${status}`} title={STATUS_TITLES[status]} data-testid="key-status">
      {status}
    </span>
  );
}

import { useId, useState, type FormEvent } from 'react';
import { SCOPES, type ApiKeyWithSecret, type Client, type CreateApiKeyBody, type Scope } from './api.ts';
import { ProblemView } from './problem-view.tsx';

/** The request body for the form's values: an expiry date is the end of that day (UTC). */
function bodyOf(name: string, scopes: readonly Scope[], expiresOn: string, never: boolean): CreateApiKeyBody {
  const body: CreateApiKeyBody = { name, scopes: [...scopes] };
  if (expiresOn) body.expires_at = `${expiresOn}T23:59:59Z`;
  else if (never) body.no_expiry = true;
  return body;
}

/**
 * Creating a key: its name, scopes (a key can grant only scopes it holds; the API says so otherwise)
 * and expiry. `onCreated` gets the key with its secret, which the API never shows again.
 */
export function NewApiKey({ client, onCreated }: { client: Client; onCreated: (key: ApiKeyWithSecret) => void }) {
  const ids = useId();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>([]);
  const [expiresOn, setExpiresOn] = useState('');
  const [never, setNever] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const toggle = (scope: Scope) =>
    setScopes((held) => (held.includes(scope) ? held.filter((s) => s !== scope) : [...held, scope]));

  async function create(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onCreated(await client.apiKeys.create(bodyOf(name, scopes, expiresOn, never)));
      setName('');
      setScopes([]);
      setExpiresOn('');
      setNever(false);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="new-key" onSubmit={create} aria-labelledby={`${ids}-title`}>
      <h3 id={`${ids}-title`}>New key</h3>
      <label htmlFor={`${ids}-name`}>Name</label>
      <input id={`${ids}-name`} value={name} onChange={(e) => setName(e.target.value)} maxLength={120} required />
      <fieldset>
        <legend>Scopes</legend>
        {SCOPES.map((scope) => (
          <label key={scope} className="check">
            <input type="checkbox" checked={scopes.includes(scope)} onChange={() => toggle(scope)} />
            {scope}
          </label>
        ))}
      </fieldset>
      <div className="row">
        <label>
          Expires on
          <input type="date" value={expiresOn} onChange={(e) => setExpiresOn(e.target.value)} disabled={never} />
        </label>
        <label className="check">
          <input type="checkbox" checked={never} onChange={(e) => setNever(e.target.checked)} disabled={!!expiresOn} />
          Never expires
        </label>
      </div>
      <p className="hint">Without a date the service's default lifetime applies.</p>
      <button type="submit" disabled={busy || name.trim() === '' || scopes.length === 0}>
        {busy ? 'Creating…' : 'Create key'}
      </button>
      {error !== null && <ProblemView error={error} />}
    </form>
  );
}

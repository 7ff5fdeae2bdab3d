import { useState } from 'react';
import type { Client } from './api.ts';
import { bodyOf, type Policy } from './policy-editor.tsx';
import { ProblemView } from './problem-view.tsx';

/**
 * Whether this policy is the organization's default, in words, and the button that changes it: a
 * replace (`PUT /v1/policies/{id}`) of the policy as stored with `is_default` flipped — a new
 * revision; making it the default clears the previous default (docs/policies.md).
 */
export function PolicyDefault({
  client,
  policy,
  onSaved,
}: {
  client: Client;
  policy: Policy;
  onSaved: (saved: Policy) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  async function setDefault(isDefault: boolean) {
    setBusy(true);
    setError(null);
    try {
      onSaved(await client.policies.replace(policy.id, { ...bodyOf(policy), is_default: isDefault }));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="policy-panel" aria-labelledby="policy-default-title">
      <h3 id="policy-default-title">Default policy</h3>
      <p data-testid="policy-default-state">
        {policy.is_default
          ? policy.enabled
            ? 'This is the organization’s default policy: it decides every scan that names no policy.'
            : 'This is the organization’s default policy, but it is disabled: scans that name no policy get the built-in thresholds.'
          : 'Not the default: this policy decides only the scans that name it (options.policy_id). Scans that name no policy get the default policy, or the built-in thresholds when there is none.'}
      </p>
      {policy.is_default ? (
        <button type="button" onClick={() => void setDefault(false)} disabled={busy}>
          {busy ? 'Saving…' : 'Stop being the default'}
        </button>
      ) : (
        <button type="button" onClick={() => void setDefault(true)} disabled={busy}>
          {busy ? 'Saving…' : 'Make default'}
        </button>
      )}
      {error !== null && <ProblemView error={error} />}
    </div>
  );
}

import { useId, useMemo, useState, type FormEvent } from 'react';
import { ContentFirewallError, type Client, type components, type operations } from './api.ts';
import { PolicySummary } from './policy-summary.tsx';
import { ProblemView } from './problem-view.tsx';

/** A policy as the API answers it. */
export type Policy = components['schemas']['Policy'];
/** What create (`POST /v1/policies`) and replace (`PUT /v1/policies/{id}`) take. */
type PolicyBody = operations['createPolicy']['requestBody']['content']['application/json'];

/** A new policy's starting point: one rule of each common kind, to edit rather than to write from nothing. */
const TEMPLATE: PolicyBody = {
  name: 'New policy',
  mode: 'enforce',
  enabled: true,
  // Explicit, so the draft shows it: a policy that is not the default decides only the scans naming it.
  is_default: false,
  rules: [
    {
      name: 'Injected instructions in tool output',
      when: {
        all_of: [
          { detector: 'prompt_injection', score_above: 0.6 },
          { surface_in: ['tool_result', 'document', 'mcp_resource'] },
        ],
      },
      then: { action: 'blocked' },
    },
    {
      name: 'No SSNs or card numbers to the model',
      when: { all_of: [{ detector: 'pii', label_in: ['US_SSN', 'CREDIT_CARD'], min_confidence: 0.9 }] },
      then: { action: 'blocked' },
    },
  ],
  default_action: 'allowed',
};

/**
 * The body a replace takes for `policy`: its editable fields, rule ids included (so a replace keeps
 * them and `matched_rule_id` stays meaningful). The server's fields (ids, revision, dates) are left out.
 */
export function bodyOf(policy: Policy): PolicyBody {
  const { id: _id, revision_id: _rev, created_at: _c, updated_at: _u, rules, ...settings } = policy;
  const { name, mode, enabled, is_default, default_action, ...rest } = settings;
  // In the order a person reads it: what it is, its rules (when each holds, what it does), then the rest.
  const ordered = rules.map(({ id, name, when, then }) => ({ id, name, when, then }));
  return { name, mode, enabled, is_default, default_action, rules: ordered, ...rest };
}

/** The draft parsed, or why it is not JSON. */
function parse(text: string): { body: unknown } | { error: string } {
  try {
    return { body: JSON.parse(text) as unknown };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * The policy editor: the body as JSON (the current policy, or a template for a new one) beside its
 * rules in words, read from the draft as it is typed. Saving creates (`POST /v1/policies`) or replaces
 * (`PUT`) it; the API's validation problem is shown under the text, each issue with its JSON path.
 */
export function PolicyEditor({
  client,
  policy,
  onSaved,
}: {
  client: Client;
  /** The policy to edit; null for a new one. */
  policy: Policy | null;
  onSaved: (saved: Policy) => void;
}) {
  const ids = useId();
  const initial = useMemo(() => JSON.stringify(policy ? bodyOf(policy) : TEMPLATE, null, 2), [policy]);
  const [text, setText] = useState(initial);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const draft = useMemo(() => parse(text), [text]);

  async function save(event: FormEvent) {
    event.preventDefault();
    setError(null);
    if ('error' in draft) {
      setError(new Error(`The body is not JSON: ${draft.error}`));
      return;
    }
    setBusy(true);
    try {
      // The API checks the body's shape and reports every problem with its path: the page does not guess.
      const body = draft.body as PolicyBody;
      onSaved(policy ? await client.policies.replace(policy.id, body) : await client.policies.create(body));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="policy-editor" onSubmit={save} aria-labelledby={`${ids}-title`}>
      <h3 id={`${ids}-title`}>{policy ? 'Edit the policy' : 'Write the policy'}</h3>
      <div className="policy-editor-columns">
        <div>
          <label htmlFor={`${ids}-body`}>Policy body (JSON)</label>
          <textarea
            id={`${ids}-body`}
            rows={24}
            spellCheck={false}
            value={text}
            onChange={(e) => setText(e.target.value)}
            aria-invalid={error !== null}
            aria-describedby={`${ids}-help`}
          />
          <p className="hint" id={`${ids}-help`}>
            Rules, conditions and thresholds as in the policy reference (docs/policies.md). Ids, revision and dates are
            the service&apos;s: leave them out.
          </p>
          <div className="row">
            <button type="submit" disabled={busy}>
              {busy ? 'Saving…' : policy ? 'Save policy' : 'Create policy'}
            </button>
            <button type="button" onClick={() => setText(initial)} disabled={busy || text === initial}>
              Discard changes
            </button>
          </div>
          {error !== null && <ProblemView error={error} />}
        </div>
        <div>
          <h4>Summary of the draft</h4>
          {'error' in draft ? (
            <p className="empty">Not JSON yet: {draft.error}</p>
          ) : (
            <PolicySummary body={draft.body} issues={error instanceof ContentFirewallError ? error.errors : []} />
          )}
        </div>
      </div>
    </form>
  );
}

import { useCallback } from 'react';
import type { Client, Session } from './api.ts';
import { when } from './format.ts';
import { PolicyDetail } from './policy-detail.tsx';
import { PolicyEditor, type Policy } from './policy-editor.tsx';
import { ActionBadge } from './policy-summary.tsx';
import { ProblemView } from './problem-view.tsx';
import { Link, useRoute } from './router.tsx';
import { usePaged } from './use-paged.ts';
import './policies.css';

/**
 * The Policies page: the organization's policies (`/dashboard/policies`), a new one
 * (`/dashboard/policies/new`) and one policy with its editor, simulate, backtest and delete
 * (`/dashboard/policies/<id>`).
 */
export function Policies({ client }: Session) {
  const { segments } = useRoute();
  const id = segments[1];
  if (id === 'new') return <NewPolicy client={client} />;
  if (id) return <PolicyDetail key={id} client={client} policyId={id} />;
  return <PolicyList client={client} />;
}

/** Creating a policy from the template; once created, its own page opens. */
function NewPolicy({ client }: { client: Client }) {
  const { go } = useRoute();
  return (
    <section aria-labelledby="policies-title">
      <p>
        <Link to="policies">← All policies</Link>
      </p>
      <h2 id="policies-title">New policy</h2>
      <PolicyEditor client={client} policy={null} onSaved={(p) => go(`policies/${encodeURIComponent(p.id)}`)} />
    </section>
  );
}

/** The policies, newest first, a page at a time. */
function PolicyList({ client }: { client: Client }) {
  const fetchPage = useCallback((cursor?: string) => client.policies.list(cursor ? { cursor } : {}), [client]);
  const policies = usePaged(fetchPage);
  return (
    <section aria-labelledby="policies-title">
      <div className="policies-head">
        <h2 id="policies-title">Policies</h2>
        <Link to="policies/new" className="button-link">
          New policy
        </Link>
      </div>
      <p className="hint">
        A policy turns a scan&apos;s findings into the decision: its rules in order, then the detector thresholds, then
        its default action. The default policy decides the scans that name none.
      </p>
      {policies.error !== null && <ProblemView error={policies.error} />}
      {policies.items === null && policies.error === null && <p>Loading…</p>}
      {policies.items && policies.items.length > 0 && !policies.next && !policies.items.some((p) => p.is_default) && (
        <p className="notice" data-testid="no-default-policy">
          No policy is the default: scans that name no policy get the built-in thresholds. Open a policy and{' '}
          <strong>Make default</strong> to apply it to them.
        </p>
      )}
      {policies.items && <PolicyTable policies={policies.items} />}
      {policies.next && (
        <button type="button" onClick={policies.loadMore} disabled={policies.loading}>
          Load more
        </button>
      )}
    </section>
  );
}

/** One row per policy, its name linking to its page. */
function PolicyTable({ policies }: { policies: Policy[] }) {
  if (policies.length === 0)
    return (
      <p className="empty">
        No policies yet: scans get the built-in thresholds. <Link to="policies/new">Create one</Link>.
      </p>
    );
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Mode</th>
          <th scope="col">Rules</th>
          <th scope="col">Default action</th>
          <th scope="col">Updated</th>
        </tr>
      </thead>
      <tbody>
        {policies.map((p) => (
          <tr key={p.id} data-policy-id={p.id}>
            <td>
              <Link to={`policies/${encodeURIComponent(p.id)}`}>{p.name}</Link>
              {p.is_default && <span className="tag">default</span>}
              {!p.enabled && <span className="tag">disabled</span>}
            </td>
            <td>{p.mode}</td>
            <td>{p.rules.length}</td>
            <td>
              <ActionBadge action={p.default_action} />
            </td>
            <td>{when(p.updated_at)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

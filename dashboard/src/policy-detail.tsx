import { useEffect, useState } from 'react';
import type { Client } from './api.ts';
import { ConfirmButton } from './confirm-button.tsx';
import { when } from './format.ts';
import { PolicyBacktest } from './policy-backtest.tsx';
import { PolicyDefault } from './policy-default.tsx';
import { PolicyEditor, type Policy } from './policy-editor.tsx';
import { PolicySimulate } from './policy-simulate.tsx';
import { ProblemView } from './problem-view.tsx';
import { Link, useRoute } from './router.tsx';

/**
 * One policy (`/dashboard/policies/<id>`, `GET /v1/policies/{id}`): its facts, the editor (replace),
 * simulate, backtest and delete. A save shows the new revision at once.
 */
export function PolicyDetail({ client, policyId }: { client: Client; policyId: string }) {
  const { go } = useRoute();
  const [policy, setPolicy] = useState<Policy | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);

  useEffect(() => {
    let live = true;
    client.policies.get(policyId).then(
      (p) => live && setPolicy(p),
      (err: unknown) => live && setError(err),
    );
    return () => {
      live = false;
    };
  }, [client, policyId]);

  return (
    <section aria-labelledby="policy-title">
      <p>
        <Link to="policies">← All policies</Link>
      </p>
      {error !== null && <ProblemView error={error} />}
      {policy === null && error === null && <p>Loading…</p>}
      {policy && (
        <>
          <h2 id="policy-title">
            {policy.name}
            {policy.is_default && <span className="tag">default</span>}
            {!policy.enabled && <span className="tag">disabled</span>}
            {policy.mode === 'observe' && <span className="tag">observe</span>}
          </h2>
          <dl className="facts">
            <dt>Id</dt>
            <dd>
              <code>{policy.id}</code>
            </dd>
            <dt>Revision</dt>
            <dd>
              <code data-testid="policy-revision">{policy.revision_id}</code>
              {saved && <span className="saved"> saved</span>}
            </dd>
            <dt>Created</dt>
            <dd>{when(policy.created_at)}</dd>
            <dt>Updated</dt>
            <dd>{when(policy.updated_at)}</dd>
          </dl>
          <PolicyEditor
            // A new revision resets the draft to what was stored.
            key={policy.revision_id}
            client={client}
            policy={policy}
            onSaved={(p) => {
              setPolicy(p);
              setSaved(true);
            }}
          />
          <PolicyDefault
            client={client}
            policy={policy}
            onSaved={(p) => {
              setPolicy(p);
              setSaved(true);
            }}
          />
          <PolicySimulate client={client} policyId={policy.id} />
          <PolicyBacktest client={client} policyId={policy.id} />
          <div className="policy-panel">
            <h3>Delete</h3>
            <ConfirmButton
              label="Delete policy"
              confirmLabel="Confirm delete"
              question={`Delete ${policy.name}? Scans that name it are refused from then on${policy.is_default ? ', and scans that name no policy get the built-in thresholds' : ''}.`}
              onConfirm={async () => {
                await client.policies.delete(policy.id);
                go('policies');
              }}
            />
          </div>
        </>
      )}
    </section>
  );
}

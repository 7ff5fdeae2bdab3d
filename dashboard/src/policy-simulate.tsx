import { useEffect, useId, useState, type FormEvent } from 'react';
import type { Client, components, Scan } from './api.ts';
import { when } from './format.ts';
import { ActionBadge } from './policy-summary.tsx';
import { ProblemView } from './problem-view.tsx';
import { Link } from './router.tsx';

/** What `POST /v1/policies/{id}:simulate` answers. */
type Simulation = components['schemas']['PolicySimulation'];

/** How many recent scans the picker offers (one page; any other can be pasted by id). */
const RECENT = 25;

/**
 * Simulate: what this policy would decide for a stored scan (`POST /v1/policies/{id}:simulate` with
 * `scan_id`; nothing is persisted), beside the decision the scan got. The scan is picked from the
 * organization's recent scans (`GET /v1/scans`) or pasted by id.
 */
export function PolicySimulate({ client, policyId }: { client: Client; policyId: string }) {
  const ids = useId();
  const [recent, setRecent] = useState<Scan[] | null>(null);
  const [listError, setListError] = useState<unknown>(null);
  const [scanId, setScanId] = useState('');
  const [result, setResult] = useState<{ scanId: string; simulation: Simulation } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let live = true;
    client.scans.list({ limit: RECENT }).then(
      (page) => live && setRecent(page.data),
      (err: unknown) => live && setListError(err),
    );
    return () => {
      live = false;
    };
  }, [client]);

  async function simulate(event: FormEvent) {
    event.preventDefault();
    const id = scanId.trim();
    setBusy(true);
    setError(null);
    try {
      setResult({ scanId: id, simulation: await client.policies.simulate(policyId, { scan_id: id }) });
    } catch (err) {
      setResult(null);
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="policy-panel" onSubmit={simulate} aria-labelledby={`${ids}-title`}>
      <h3 id={`${ids}-title`}>Simulate against a scan</h3>
      <p className="hint">
        What this policy would decide for a stored scan, as it is now (enabled or not). Nothing is saved.
      </p>
      <div className="row">
        <label>
          Recent scan
          <select
            value={recent?.some((s) => s.id === scanId) ? scanId : ''}
            onChange={(e) => setScanId(e.target.value)}
          >
            <option value="">{recent === null ? 'Loading…' : recent.length ? 'Pick a scan…' : 'No scans yet'}</option>
            {recent?.map((s) => (
              <option key={s.id} value={s.id}>
                {`${when(s.created)} · ${s.surface} · ${s.decision.action} · ${s.id}`}
              </option>
            ))}
          </select>
        </label>
        <label>
          Scan id
          <input value={scanId} onChange={(e) => setScanId(e.target.value)} placeholder="scan_…" size={36} />
        </label>
        <button type="submit" disabled={busy || scanId.trim() === ''}>
          {busy ? 'Simulating…' : 'Simulate'}
        </button>
      </div>
      {listError !== null && <ProblemView error={listError} />}
      {error !== null && <ProblemView error={error} />}
      {result && <SimulationResult {...result} />}
    </form>
  );
}

/** The scan's own decision against this policy's, and what decided the latter. */
function SimulationResult({ scanId, simulation }: { scanId: string; simulation: Simulation }) {
  const { decision, matched_rule: rule, diff_from_current: diff } = simulation;
  const changed = diff.previous_action !== diff.new_action;
  return (
    <div className="simulation" aria-live="polite" data-testid="simulation">
      <p className="diff">
        <span>
          Scan&apos;s decision <ActionBadge action={diff.previous_action} testId="original-action" />
        </span>
        <span aria-hidden="true">→</span>
        <span>
          This policy <ActionBadge action={diff.new_action} testId="simulated-action" />
        </span>
        <strong>{changed ? 'changes' : 'unchanged'}</strong>
      </p>
      <dl className="facts">
        <dt>Scan</dt>
        <dd>
          <Link to={`scans/${encodeURIComponent(scanId)}`}>
            <code>{scanId}</code>
          </Link>
        </dd>
        <dt>Reason</dt>
        <dd>
          <code data-testid="simulated-reason">{decision.reason}</code>
          {decision.observed_action && (
            <>
              {' '}
              (enforce would answer <ActionBadge action={decision.observed_action} />)
            </>
          )}
        </dd>
        <dt>Matched rule</dt>
        <dd data-testid="simulated-rule">{rule ? `${rule.rule_name} (${rule.rule_id})` : 'none'}</dd>
        <dt>Triggered by</dt>
        <dd>{decision.triggering_finding ? <code>{decision.triggering_finding}</code> : 'nothing'}</dd>
        <dt>Decided before by</dt>
        <dd>{diff.previous_revision_id ? <code>{diff.previous_revision_id}</code> : 'the built-in thresholds'}</dd>
      </dl>
    </div>
  );
}

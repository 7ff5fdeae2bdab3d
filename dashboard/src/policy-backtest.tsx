import { useId, useState, type FormEvent } from 'react';
import { ACTIONS, type Action, type Client, type components } from './api.ts';
import { localInput, millis, when } from './format.ts';
import { ActionBadge } from './policy-summary.tsx';
import { ProblemView } from './problem-view.tsx';
import { Link } from './router.tsx';

/** What `POST /v1/policies/{id}:backtest` answers. */
type Backtest = components['schemas']['PolicyBacktest'];

/** The next whole minute after now: a window ending there holds the scans of the last seconds too. */
const nextMinute = (): Date => new Date(Math.ceil((Date.now() + 1) / 60_000) * 60_000);

/**
 * Backtest: this policy evaluated, as `enforce` would apply it, over the organization's stored scans of
 * a window (`POST /v1/policies/{id}:backtest`, synchronous: the answer is the result). Shows the count
 * per action before and after, the action diff (how many scans move from which action to which) and
 * sample scans of each change.
 */
export function PolicyBacktest({ client, policyId }: { client: Client; policyId: string }) {
  const ids = useId();
  const [since, setSince] = useState(() => localInput(new Date(Date.now() - 7 * 24 * 3_600_000)));
  const [until, setUntil] = useState(() => localInput(nextMinute()));
  const [samples, setSamples] = useState(5);
  const [result, setResult] = useState<Backtest | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  async function run(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const window = { since: new Date(since).toISOString(), until: new Date(until).toISOString() };
      setResult(await client.policies.backtest(policyId, { ...window, samples }));
    } catch (err) {
      setResult(null);
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="policy-panel" onSubmit={run} aria-labelledby={`${ids}-title`}>
      <h3 id={`${ids}-title`}>Backtest over a window</h3>
      <p className="hint">
        Every stored scan created in the window, decided again by this policy as <code>enforce</code> would (whatever
        its mode). Nothing is changed.
      </p>
      <div className="row">
        <label>
          Since
          <input type="datetime-local" value={since} onChange={(e) => setSince(e.target.value)} required />
        </label>
        <label>
          Until
          <input type="datetime-local" value={until} onChange={(e) => setUntil(e.target.value)} required />
        </label>
        <label>
          Samples per change
          <input
            type="number"
            min={0}
            max={20}
            value={samples}
            onChange={(e) => setSamples(Number(e.target.value))}
            required
          />
        </label>
        <button type="submit" disabled={busy}>
          {busy ? 'Running…' : 'Run backtest'}
        </button>
      </div>
      {error !== null && <ProblemView error={error} />}
      {result && <BacktestResult result={result} />}
    </form>
  );
}

/** Scans per action before (what callers got) and after (this policy), from the transitions. */
function totals(result: Backtest): Map<Action, { before: number; after: number }> {
  const byAction = new Map(ACTIONS.map((a) => [a, { before: 0, after: 0 }]));
  for (const t of result.transitions) {
    byAction.get(t.previous_action)!.before += t.count;
    byAction.get(t.new_action)!.after += t.count;
  }
  return byAction;
}

/** The backtest's answer: its facts, the counts per action, the diff table and the changed scans. */
function BacktestResult({ result }: { result: Backtest }) {
  const counts = totals(result);
  const cell = (from: Action, to: Action) =>
    result.transitions.find((t) => t.previous_action === from && t.new_action === to)?.count ?? 0;
  const changes = result.transitions.filter((t) => t.previous_action !== t.new_action);
  return (
    <div className="backtest" aria-live="polite" data-testid="backtest">
      <dl className="facts">
        <dt>Window</dt>
        <dd>
          {when(result.window.since)} to {when(result.window.until)}
        </dd>
        <dt>Scans evaluated</dt>
        <dd data-testid="backtest-evaluated">{result.scans_evaluated}</dd>
        <dt>Would change</dt>
        <dd data-testid="backtest-changed">{result.changed}</dd>
        <dt>Revision</dt>
        <dd>
          <code>{result.revision_id}</code>
        </dd>
        <dt>Took</dt>
        <dd>{millis(result.elapsed_ms)}</dd>
        {result.truncated_at_scan_id && (
          <>
            <dt>Stopped early</dt>
            <dd>
              at <code>{result.truncated_at_scan_id}</code> (the scan limit): start the next window after it
            </dd>
          </>
        )}
      </dl>
      {result.scans_evaluated === 0 ? (
        <p className="empty">No scans were created in this window.</p>
      ) : (
        <>
          <CountsTable counts={counts} total={result.scans_evaluated} />
          <table className="diff-table" data-testid="diff-table">
            <caption>Action diff: scans per action they got (rows) and action under this policy (columns)</caption>
            <thead>
              <tr>
                <th scope="col">Got ↓ / would get →</th>
                {ACTIONS.map((a) => (
                  <th scope="col" key={a}>
                    {a}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {ACTIONS.map((from) => (
                <tr key={from}>
                  <th scope="row">{from}</th>
                  {ACTIONS.map((to) => {
                    const n = cell(from, to);
                    const kind = n === 0 ? 'none' : from === to ? 'same' : 'changed';
                    return (
                      <td key={to} className={`diff-${kind}`} data-testid={`diff-${from}-${to}`}>
                        {n}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
          <Changes changes={changes} />
        </>
      )}
    </div>
  );
}

/** Per action: scans before and after, as numbers and as a pair of bars (hand-drawn SVG). */
function CountsTable({ counts, total }: { counts: Map<Action, { before: number; after: number }>; total: number }) {
  return (
    <table className="counts-table">
      <caption>Scans per action (bars: grey what they got, coloured what they would get)</caption>
      <thead>
        <tr>
          <th scope="col">Action</th>
          <th scope="col">Got</th>
          <th scope="col">Would get</th>
          <th scope="col">Change</th>
          <th scope="col">
            <span className="visually-hidden">Bars</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {ACTIONS.map((a) => {
          const { before, after } = counts.get(a)!;
          return (
            <tr key={a} data-testid={`count-${a}`}>
              <th scope="row">
                <ActionBadge action={a} />
              </th>
              <td>{before}</td>
              <td>{after}</td>
              <td>{after === before ? '0' : after > before ? `+${after - before}` : `${after - before}`}</td>
              <td>
                <svg className="count-bars" viewBox="0 0 100 12" preserveAspectRatio="none" aria-hidden="true">
                  <rect className="bar-before" x="0" y="0" height="5" width={(100 * before) / total} />
                  <rect className={`bar-after bar-${a}`} x="0" y="7" height="5" width={(100 * after) / total} />
                </svg>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** Each change of action with its count and sample scans (links to the scan's page). */
function Changes({ changes }: { changes: Backtest['transitions'] }) {
  if (changes.length === 0) return <p className="empty">No scan would get a different action.</p>;
  return (
    <>
      <h4>Changes, with examples</h4>
      <ul className="changes">
        {changes.map((t) => (
          <li key={`${t.previous_action}-${t.new_action}`}>
            <ActionBadge action={t.previous_action} /> → <ActionBadge action={t.new_action} />: {t.count} scan
            {t.count === 1 ? '' : 's'}
            {t.sample_scan_ids.length > 0 && (
              <span className="samples">
                {' '}
                e.g.{' '}
                {t.sample_scan_ids.map((id) => (
                  <Link key={id} to={`scans/${encodeURIComponent(id)}`}>
                    <code>{id}</code>
                  </Link>
                ))}
              </span>
            )}
          </li>
        ))}
      </ul>
    </>
  );
}

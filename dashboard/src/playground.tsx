import { useId, useState, type FormEvent } from 'react';
import { SURFACES, TIERS, type Client, type Scan, type Surface, type Tier } from './api.ts';
import { millis } from './format.ts';
import { HighlightedText } from './highlighted-text.tsx';
import { ProblemView } from './problem-view.tsx';
import { Link } from './router.tsx';

/** A scan's result with the text it was run on and how long the browser waited for it. */
interface Result {
  text: string;
  scan: Scan;
  latencyMs: number;
}

/**
 * The Playground: type or paste text, pick the surface and tier, scan it (`POST /v1/scans`, stored
 * like any scan of the organization) and see the decision, the findings highlighted in the text, and
 * the latency measured here.
 */
export function Playground({ client }: { client: Client }) {
  const ids = useId();
  const [text, setText] = useState('');
  const [surface, setSurface] = useState<Surface>('user_message');
  const [tier, setTier] = useState<Tier>('auto');
  const [result, setResult] = useState<Result | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  async function scan(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const started = performance.now();
    try {
      const scan = await client.scans.create({
        kind: 'content',
        surface,
        content: { type: 'text', text },
        options: { tier },
      });
      setResult({ text, scan, latencyMs: performance.now() - started });
    } catch (err) {
      setResult(null);
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby={`${ids}-title`}>
      <h2 id={`${ids}-title`}>Playground</h2>
      <form className="scan-form" onSubmit={scan}>
        <label htmlFor={`${ids}-text`}>Text to scan</label>
        <textarea
          id={`${ids}-text`}
          rows={8}
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) e.currentTarget.form?.requestSubmit();
          }}
          placeholder="Paste a prompt, a tool result, a document…"
        />
        <div className="row">
          <label>
            Surface
            <select value={surface} onChange={(e) => setSurface(e.target.value as Surface)}>
              {SURFACES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </label>
          <label>
            Tier
            <select value={tier} onChange={(e) => setTier(e.target.value as Tier)}>
              {TIERS.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" disabled={busy || text === ''}>
            {busy ? 'Scanning…' : 'Scan'}
          </button>
        </div>
        <p className="hint">Ctrl+Enter scans. Each scan is stored like any other scan of the organization.</p>
      </form>
      {error !== null && <ProblemView error={error} />}
      {result && <ScanResult result={result} />}
    </section>
  );
}

/** The decision, the latency, the highlighted text and the findings of one scan. */
function ScanResult({ result: { text, scan, latencyMs } }: { result: Result }) {
  const { decision } = scan;
  const items = scan.findings.flatMap((f) => f.items.map((item) => ({ detector: f.detector, ...item })));
  return (
    <div className="scan-result" aria-live="polite">
      <h3>Decision</h3>
      <p>
        <span className={`action action-${decision.action}`} data-testid="decision-action">
          {decision.action}
        </span>{' '}
        because <code data-testid="decision-reason">{decision.reason}</code>
        {decision.triggering_finding && (
          <>
            {' '}
            (triggered by <code>{decision.triggering_finding}</code>)
          </>
        )}
      </p>
      <dl className="facts">
        <dt>Policy</dt>
        <dd>{decision.policy_id ?? 'built-in thresholds'}</dd>
        {decision.matched_rule_id && (
          <>
            <dt>Matched rule</dt>
            <dd>{decision.matched_rule_id}</dd>
          </>
        )}
        <dt>Latency</dt>
        <dd data-testid="latency">{millis(latencyMs)} (measured in this browser)</dd>
        <dt>Scan</dt>
        <dd>
          <Link to={`scans/${encodeURIComponent(scan.id)}`}>
            <code>{scan.id}</code>
          </Link>{' '}
          (stored with the organization&apos;s scans)
        </dd>
      </dl>
      <h3>Text</h3>
      <HighlightedText text={text} scan={scan} />
      <h3>Findings</h3>
      {items.length === 0 ? (
        <p className="empty">No detector found anything in this text.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Detector</th>
              <th scope="col">Label</th>
              <th scope="col">Confidence</th>
              <th scope="col">Matched text</th>
            </tr>
          </thead>
          <tbody>
            {items.map((item) => (
              <tr key={`${item.detector}:${item.label}:${item.span[0]}:${item.span[1]}`}>
                <td>{item.detector}</td>
                <td>{item.label}</td>
                <td>{item.confidence.toFixed(2)}</td>
                <td>
                  <code>{item.text}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

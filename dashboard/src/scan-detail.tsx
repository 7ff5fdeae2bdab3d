import { useEffect, useState } from 'react';
import type { Client, Scan } from './api.ts';
import { Facts } from './facts.tsx';
import { when } from './format.ts';
import { HighlightedText } from './highlighted-text.tsx';
import { ProblemView } from './problem-view.tsx';
import { Link } from './router.tsx';

/** One detector's finding, as a scan lists it. */
type Finding = Scan['findings'][number];
/** What a scan captured: text, an image, or an MCP toolset. */
type Content = NonNullable<Scan['content']>;

/**
 * One scan's page (`GET /v1/scans/{id}`, the address `scans/<id>` works when opened directly): the
 * decision and why, its context, every finding with its frameworks, and the captured content with
 * the findings highlighted, or a note saying why there is none. An unknown id shows the API's problem.
 */
export function ScanDetail({ client, id }: { client: Client; id: string }) {
  const [scan, setScan] = useState<Scan | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let current = true;
    setScan(null);
    setError(null);
    client.scans.get(id).then(
      (s) => current && setScan(s),
      (err: unknown) => current && setError(err),
    );
    return () => {
      current = false;
    };
  }, [client, id]);

  return (
    <section aria-labelledby="scan-title" className="scan-detail">
      <p>
        <Link to="scans">← All scans</Link>
      </p>
      <h2 id="scan-title">
        Scan <code>{id}</code>
      </h2>
      {error !== null && <ProblemView error={error} />}
      {scan === null && error === null && <p>Loading…</p>}
      {scan && <ScanView scan={scan} />}
    </section>
  );
}

/** A loaded scan: decision, context, findings, content. */
function ScanView({ scan }: { scan: Scan }) {
  const { decision, context } = scan;
  const code = (value: string | null | undefined) => value && <code>{value}</code>;
  return (
    <>
      <h3>Decision</h3>
      <p>
        <span className={`action action-${decision.action}`} data-testid="decision-action">
          {decision.action}
        </span>{' '}
        because <code data-testid="decision-reason">{decision.reason}</code>
      </p>
      <Facts
        facts={[
          ['Triggering finding', code(decision.triggering_finding)],
          ['Policy', decision.policy_id ? <code>{decision.policy_id}</code> : 'built-in thresholds'],
          ['Policy revision', code(decision.policy_revision_id)],
          ['Matched rule', code(decision.matched_rule_id)],
          [
            'Observe mode',
            decision.observed_action &&
              `enforcing would have ${decision.observed_action} it (${decision.observed_reason ?? 'no reason given'})`,
          ],
        ]}
      />
      <h3>Scan</h3>
      <Facts
        facts={[
          ['Time', `${when(scan.created)} (${scan.created})`],
          ['Kind', scan.kind],
          ['Surface', scan.surface],
          ['Agent', code(context.agent_id)],
          ['Session', code(context.session_id)],
          ['MCP server', code(context.mcp_server)],
          ['Trace', code(context.trace_id)],
          ['End-user id hash', code(context.end_user_id_hash)],
        ]}
      />
      <h3>Findings</h3>
      {scan.findings.length === 0 ? (
        <p className="empty">No detector found anything in this content.</p>
      ) : (
        scan.findings.map((finding) => <FindingView key={finding.detector} finding={finding} />)
      )}
      <h3>Content</h3>
      <ContentView scan={scan} />
    </>
  );
}

/** The framework entries a detector maps to, by framework (none listed: left out). */
const FRAMEWORKS: [keyof Finding['frameworks'], string][] = [
  ['owasp_llm', 'OWASP LLM Top 10'],
  ['owasp_agentic', 'OWASP Agentic'],
  ['mitre_atlas', 'MITRE ATLAS'],
];

/** One detector's finding: its framework mappings, then each item it found. */
function FindingView({ finding }: { finding: Finding }) {
  const mapped = FRAMEWORKS.filter(([key]) => finding.frameworks[key].length > 0);
  return (
    <div className="scan-finding" data-detector={finding.detector}>
      <h4>
        <code>{finding.detector}</code>
      </h4>
      {mapped.length > 0 && (
        <p className="scan-frameworks">
          {mapped.map(([key, name]) => (
            <span key={key}>
              {name}:{' '}
              {finding.frameworks[key].map((entry) => (
                <span key={entry} className="tag">
                  {entry}
                </span>
              ))}
            </span>
          ))}
        </p>
      )}
      <table>
        <thead>
          <tr>
            <th scope="col">Label</th>
            <th scope="col">Confidence</th>
            <th scope="col">Span</th>
            <th scope="col">Matched text</th>
            <th scope="col">Source</th>
          </tr>
        </thead>
        <tbody>
          {finding.items.map((item) => (
            <tr key={`${item.label}:${item.span[0]}:${item.span[1]}:${item.source}`}>
              <td>{item.label}</td>
              <td>{item.confidence.toFixed(2)}</td>
              <td className="scan-span">
                {item.span[0]}–{item.span[1]}
              </td>
              <td>
                <code>{item.text}</code>
              </td>
              <td>
                <code>{item.source}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The image types the API accepts, by the start of their base64 (the API checked the magic bytes). */
const IMAGE_STARTS: [string, string][] = [
  ['iVBORw0KGgo', 'image/png'],
  ['/9j/', 'image/jpeg'],
  ['R0lGOD', 'image/gif'],
  ['UklGR', 'image/webp'],
];

/** The captured content (text highlighted, an image, a toolset's tools), or why there is none. */
function ContentView({ scan }: { scan: Scan }) {
  const content: Content | undefined = scan.content;
  if (!content)
    return (
      <p className="empty scan-content-note" data-testid="content-note">
        {scan.content_stored
          ? 'The content was captured, but its retention window has passed: the service no longer keeps it.'
          : 'The content was not captured (the scan did not ask for options.capture), so only the findings above are kept.'}
      </p>
    );
  if (content.type === 'text') return <HighlightedText text={content.text} scan={scan} />;
  if (content.type === 'image_base64') {
    const type = content.media_type ?? IMAGE_STARTS.find(([start]) => content.data.startsWith(start))?.[1];
    return <img className="scanned-image" alt="The scanned image" src={`data:${type ?? ''};base64,${content.data}`} />;
  }
  return (
    <>
      <p className="hint">
        An MCP toolset: the findings&apos; spans index the service&apos;s text rendering of these tools.
      </p>
      <ul className="scan-toolset">
        {content.tools.map((tool, i) => (
          <li key={i}>
            <code>
              {tool.server}/{tool.name}
            </code>
            {tool.description && <pre className="scanned-text">{tool.description}</pre>}
          </li>
        ))}
      </ul>
    </>
  );
}

import { useCallback, useState } from 'react';
import type { Client, Scan, Session } from './api.ts';
import { when } from './format.ts';
import { ProblemView } from './problem-view.tsx';
import { Link, useRoute } from './router.tsx';
import { ScanDetail } from './scan-detail.tsx';
import { ScanFilters, type ScanQuery } from './scan-filters.tsx';
import { usePaged } from './use-paged.ts';
import './scans.css';

/** How many findings a row of the list names before "+N more" (the detail lists them all). */
const TOP_FINDINGS = 3;

/**
 * The Scans page: the organization's scans (`GET /v1/scans`, newest first, a page at a time) filtered
 * by every filter the route takes; `scans/<id>` is one scan's detail. The filters live here, above
 * both, so going back from a scan shows the list as it was filtered.
 */
export function Scans({ client }: Session) {
  const { segments } = useRoute();
  const [query, setQuery] = useState<ScanQuery>({});
  const id = segments[1];
  if (id) return <ScanDetail client={client} id={id} />;
  return <ScanList client={client} query={query} onQuery={setQuery} />;
}

/** The filters and the list of scans they select, with **Load more** while there are older ones. */
function ScanList({ client, query, onQuery }: { client: Client; query: ScanQuery; onQuery: (q: ScanQuery) => void }) {
  const fetchPage = useCallback(
    (cursor?: string) => client.scans.list({ ...query, ...(cursor ? { cursor } : {}) }),
    [client, query],
  );
  const scans = usePaged(fetchPage);
  const filtered = Object.keys(query).some((k) => k !== 'limit');
  return (
    <section aria-labelledby="scans-title">
      <h2 id="scans-title">Scans</h2>
      <p className="hint">
        Every scan of the organization, newest first: from the API and from the Playground. Open a scan&apos;s id for
        its decision, every finding and, when it was captured, its content.
      </p>
      <ScanFilters query={query} onApply={onQuery} />
      {scans.error !== null && <ProblemView error={scans.error} />}
      {scans.items === null && scans.error === null && <p>Loading…</p>}
      {scans.items && <ScanTable scans={scans.items} filtered={filtered} />}
      {scans.next && (
        <button type="button" onClick={scans.loadMore} disabled={scans.loading}>
          Load more
        </button>
      )}
    </section>
  );
}

/** The scans, one row each: time, surface, action, top findings, id (a link to the scan's page). */
function ScanTable({ scans, filtered }: { scans: Scan[]; filtered: boolean }) {
  if (scans.length === 0)
    return (
      <p className="empty">
        {filtered ? 'No scan matches these filters.' : 'This organization has no scans yet: try the Playground.'}
      </p>
    );
  return (
    <table className="scan-table">
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">Surface</th>
          <th scope="col">Action</th>
          <th scope="col">Top findings</th>
          <th scope="col">Scan</th>
        </tr>
      </thead>
      <tbody>
        {scans.map((scan) => (
          <tr key={scan.id} data-scan-id={scan.id}>
            <td>{when(scan.created)}</td>
            <td>{scan.surface}</td>
            <td>
              <span className={`action action-${scan.decision.action}`}>{scan.decision.action}</span>
              {scan.decision.observed_action && <span className="tag">observed {scan.decision.observed_action}</span>}
            </td>
            <td>
              <TopFindings scan={scan} />
            </td>
            <td>
              <Link to={`scans/${encodeURIComponent(scan.id)}`} className="scan-id">
                {scan.id}
              </Link>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The scan's most confident findings as `detector:label` (the one that decided first), and how many more. */
function TopFindings({ scan }: { scan: Scan }) {
  const trigger = scan.decision.triggering_finding;
  const labels = scan.findings
    .flatMap((f) => f.items.map((item) => ({ name: `${f.detector}:${item.label}`, confidence: item.confidence })))
    .sort((a, b) => Number(b.name === trigger) - Number(a.name === trigger) || b.confidence - a.confidence)
    .map((f) => f.name);
  const distinct = [...new Set(labels)];
  if (distinct.length === 0) return <span className="empty">none</span>;
  const more = distinct.length - TOP_FINDINGS;
  return (
    <span className="top-findings">
      {distinct.slice(0, TOP_FINDINGS).map((name) => (
        <code key={name}>{name}</code>
      ))}
      {more > 0 && <span className="hint">+{more} more</span>}
    </span>
  );
}

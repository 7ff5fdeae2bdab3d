import { useState } from 'react';
import type { Client } from './api.ts';
import type { AuditQuery } from './audit-filters.tsx';
import { ProblemView } from './problem-view.tsx';

/** The largest page the audit route serves: the fewest requests for a long export. */
const EXPORT_PAGE = 10_000;

/** Everything after the CSV's first line (its header row; a header cell never holds a line break). */
const withoutHeader = (csv: string): string => {
  const end = csv.indexOf('\n');
  return end === -1 ? '' : csv.slice(end + 1);
};

/**
 * Every event `query` selects, as one CSV: page after page (`Next-Cursor`) until the last, the header
 * row kept once. `onPage` hears how many pages have arrived.
 */
async function exportAuditCsv(client: Client, query: AuditQuery, onPage: (pages: number) => void) {
  const parts: string[] = [];
  let cursor: string | null = null;
  do {
    const page: { csv: string; nextCursor: string | null } = await client.auditEvents.csv({
      ...query,
      limit: EXPORT_PAGE,
      ...(cursor ? { cursor } : {}),
    });
    parts.push(parts.length === 0 ? page.csv : withoutHeader(page.csv));
    onPage(parts.length);
    cursor = page.nextCursor;
  } while (cursor);
  return parts.join('');
}

/** Hands `csv` to the browser as a download named `name`, through an object URL revoked right after. */
function save(csv: string, name: string): void {
  const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The click has started the download; the URL is not needed after this turn.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/**
 * **Download CSV**: what the current filters select, every page of it (not only what the table has
 * loaded), saved as audit-events.csv. The credential stays in the request headers: the link the
 * browser follows is a blob of this page.
 */
export function AuditDownload({ client, query }: { client: Client; query: AuditQuery }) {
  const [pages, setPages] = useState<number | null>(null);
  const [error, setError] = useState<unknown>(null);

  async function download() {
    setError(null);
    setPages(0);
    try {
      save(await exportAuditCsv(client, query, setPages), 'audit-events.csv');
    } catch (err) {
      setError(err);
    } finally {
      setPages(null);
    }
  }

  return (
    <div className="audit-download">
      <button type="button" onClick={() => void download()} disabled={pages !== null}>
        {pages === null ? 'Download CSV' : `Downloading… (${pages} page${pages === 1 ? '' : 's'})`}
      </button>
      {error !== null && <ProblemView error={error} />}
    </div>
  );
}

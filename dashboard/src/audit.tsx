import { Fragment, useCallback, useState, type ReactNode } from 'react';
import { useActorNames } from './actor-names.ts';
import type { Session, components } from './api.ts';
import { AuditDownload } from './audit-download.tsx';
import { AuditFilters, RESOURCE_TYPES, type AuditQuery } from './audit-filters.tsx';
import { Facts } from './facts.tsx';
import { when } from './format.ts';
import { ProblemView } from './problem-view.tsx';
import { Link } from './router.tsx';
import { usePaged } from './use-paged.ts';
import './audit.css';

/** One audit log entry: a detection (a scan decided) or a management change. */
type AuditEvent = components['schemas']['AuditEvent'];

/** Events per page in the table (the route allows up to 10,000; a person reads far fewer). */
const PAGE_SIZE = 50;

/**
 * The Audit page: the organization's audit log (`GET /v1/audit-events`, newest first, **Load more**
 * for older), filtered by kind, action, surface, resource, actor, agent, detector and time window;
 * each event's every field behind **Details**; **Download CSV** exports everything the filters select.
 * An actor shows as its key's name or member's email where the credential may list them, else its id.
 */
export function Audit(session: Session) {
  const { client } = session;
  const names = useActorNames(session);
  const [query, setQuery] = useState<AuditQuery>({});
  const fetchPage = useCallback(
    (cursor?: string) => client.auditEvents.list({ ...query, limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) }),
    [client, query],
  );
  const events = usePaged(fetchPage);
  const filtered = Object.keys(query).length > 0;

  return (
    <section aria-labelledby="audit-title">
      <h2 id="audit-title">Audit</h2>
      <p className="hint">
        Every scan decision (detection) and every change to the organization&apos;s resources (management), newest
        first. Action, surface, agent and detector select detections; resource type and id select changes.
      </p>
      <AuditFilters onApply={setQuery} />
      <AuditDownload client={client} query={query} />
      {events.error !== null && <ProblemView error={events.error} />}
      {events.items === null && events.error === null && <p>Loading…</p>}
      {events.items && <EventTable events={events.items} filtered={filtered} names={names} />}
      {events.next && (
        <button type="button" onClick={events.loadMore} disabled={events.loading}>
          Load more
        </button>
      )}
    </section>
  );
}

/** The events, one row each, with a Details button that opens every field below the row. */
function EventTable({
  events,
  filtered,
  names,
}: {
  events: AuditEvent[];
  filtered: boolean;
  names: ReadonlyMap<string, string>;
}) {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  if (events.length === 0)
    return (
      <p className="empty">
        {filtered ? 'No audit event matches these filters.' : 'This organization has no audit events yet.'}
      </p>
    );
  const toggle = (id: string) =>
    setOpen((ids) => {
      const next = new Set(ids);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  return (
    <table className="audit-table">
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">Kind</th>
          <th scope="col">What</th>
          <th scope="col">Actor</th>
          <th scope="col">Details</th>
        </tr>
      </thead>
      <tbody>
        {events.map((e) => (
          <Fragment key={e.id}>
            <tr data-event-id={e.id}>
              <td>{when(e.created)}</td>
              <td>{e.kind}</td>
              <td>
                <Summary event={e} />
              </td>
              <td>
                <Actor id={e.actor_id} names={names} />
              </td>
              <td>
                <button
                  type="button"
                  aria-expanded={open.has(e.id)}
                  aria-controls={`audit-${e.id}`}
                  onClick={() => toggle(e.id)}
                >
                  {open.has(e.id) ? 'Hide' : 'Details'}
                </button>
              </td>
            </tr>
            {open.has(e.id) && (
              <tr id={`audit-${e.id}`} className="audit-details">
                <td colSpan={5}>
                  <EventDetails event={e} names={names} />
                </td>
              </tr>
            )}
          </Fragment>
        ))}
      </tbody>
    </table>
  );
}

/** An event in one line: a change's resource and summary, or a detection's action, surface and detector. */
function Summary({ event: e }: { event: AuditEvent }) {
  if (e.kind === 'management')
    return (
      <>
        <span className="tag">{e.resource_type ? RESOURCE_TYPES[e.resource_type] : 'resource'}</span>{' '}
        <span className="audit-change">{e.change_summary}</span>
      </>
    );
  return (
    <>
      {e.action && <span className={`action action-${e.action}`}>{e.action}</span>}
      {e.enforced === false && <span className="tag">observed</span>} <span>{e.surface}</span>
      {e.detector && (
        <>
          {' '}
          by <code>{e.detector}</code>
          {e.score !== null && ` (${e.score.toFixed(2)})`}
        </>
      )}
    </>
  );
}

/** Every field the event carries (the empty ones left out); a scan links to its page. */
function EventDetails({ event: e, names }: { event: AuditEvent; names: ReadonlyMap<string, string> }) {
  const facts: [string, ReactNode][] = [
    ['Event id', <code key="id">{e.id}</code>],
    ['Time', `${when(e.created)} (${e.created})`],
    ['Request id', e.request_id && <code>{e.request_id}</code>],
    [
      'Actor',
      e.actor_id && (
        <>
          {names.get(e.actor_id) && `${names.get(e.actor_id)} `}
          <code>{e.actor_id}</code>
        </>
      ),
    ],
    ['Scan', e.scan_id && <Link to={`scans/${encodeURIComponent(e.scan_id)}`}>{e.scan_id}</Link>],
    ['Agent', e.agent_id],
    ['Session', e.session_id],
    ['Surface', e.surface],
    ['Detector', e.detector],
    ['Score', e.score?.toString()],
    ['Action', e.action && `${e.action}${e.enforced === false ? ' (observe mode: not enforced)' : ''}`],
    ['OWASP', e.owasp_tags.join(', ')],
    ['MITRE ATLAS', e.mitre_tags.join(', ')],
    ['Resource', e.resource_type && `${RESOURCE_TYPES[e.resource_type]} ${e.resource_id ?? ''}`],
    ['Change', e.change_summary],
  ];
  return <Facts facts={facts} />;
}

/** An actor by name (its id in the title), or by id where no name is known. */
function Actor({ id, names }: { id: string | null; names: ReadonlyMap<string, string> }) {
  if (id === null) return <>—</>;
  const name = names.get(id);
  return name ? (
    <span className="actor" title={id} data-actor-id={id}>
      {name}
    </span>
  ) : (
    <code data-actor-id={id}>{id}</code>
  );
}

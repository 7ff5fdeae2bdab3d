import { useId, useState, type FormEvent } from 'react';
import { ACTIONS, SURFACES, type Action, type operations } from './api.ts';
import { instant, localInput } from './format.ts';

/** What `GET /v1/scans` filters on (its query, less the cursor): every filter the route takes, and the page size. */
export type ScanQuery = Omit<NonNullable<operations['get_v1_scans']['parameters']['query']>, 'cursor'>;

/** The page sizes offered (the route allows 1–200, default 50). */
const PAGE_SIZES = ['25', '50', '100', '200'];

/** The form's values: every field a string, '' meaning "any". */
const BLANK = {
  action: '',
  surface: '',
  agent_id: '',
  session_id: '',
  end_user_id: '',
  end_user_id_hash: '',
  since: '',
  until: '',
  limit: '50',
};
type Draft = typeof BLANK;

/** The query for the form's values: blank fields are left out; the enums come from the selects' own options. */
function queryOf(d: Draft): ScanQuery {
  const q: ScanQuery = {
    action: (d.action || undefined) as Action | undefined,
    surface: (d.surface || undefined) as ScanQuery['surface'],
    agent_id: d.agent_id.trim() || undefined,
    session_id: d.session_id.trim() || undefined,
    end_user_id: d.end_user_id.trim() || undefined,
    end_user_id_hash: d.end_user_id_hash.trim().toLowerCase() || undefined,
    since: instant(d.since),
    until: instant(d.until),
    limit: d.limit === BLANK.limit ? undefined : Number(d.limit),
  };
  return Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined)) as ScanQuery;
}

/** The form's values for an applied query (the form is rebuilt when the list comes back from a scan's page). */
const draftOf = (q: ScanQuery): Draft => ({
  ...BLANK,
  ...Object.fromEntries(Object.entries(q).map(([k, v]) => [k, String(v)])),
  since: localInput(q.since),
  until: localInput(q.until),
});

/**
 * The scans list's filters, each one of `GET /v1/scans`: the decision's action, the surface, the
 * context (agent, session, end user by id — hashed by the server — or by hash), a time window (since
 * inclusive, until exclusive) and the page size. **Apply filters** hands the query to `onApply` (the
 * list is not fetched on every keystroke); **Clear** resets it. Refused values (both end-user fields, a
 * window out of order) come back from the API as its problem.
 */
export function ScanFilters({ query, onApply }: { query: ScanQuery; onApply: (query: ScanQuery) => void }) {
  const id = useId();
  const [draft, setDraft] = useState<Draft>(() => draftOf(query));
  const set = (field: keyof Draft) => (e: { target: { value: string } }) =>
    setDraft((d) => ({ ...d, [field]: e.target.value }));

  const select = (field: keyof Draft, label: string, options: readonly string[], any: string | null = 'any') => (
    <label htmlFor={`${id}-${field}`}>
      {label}
      <select id={`${id}-${field}`} value={draft[field]} onChange={set(field)}>
        {any !== null && <option value="">{any}</option>}
        {options.map((value) => (
          <option key={value} value={value}>
            {value}
          </option>
        ))}
      </select>
    </label>
  );
  const text = (field: keyof Draft, label: string, placeholder: string, type = 'text') => (
    <label htmlFor={`${id}-${field}`}>
      {label}
      <input id={`${id}-${field}`} type={type} value={draft[field]} onChange={set(field)} placeholder={placeholder} />
    </label>
  );

  const apply = (event: FormEvent) => {
    event.preventDefault();
    onApply(queryOf(draft));
  };
  const clear = () => {
    setDraft(BLANK);
    onApply({});
  };

  return (
    <form className="scan-filters" onSubmit={apply} aria-label="Filters">
      <div className="scan-filter-grid">
        {select('action', 'Action', ACTIONS)}
        {select('surface', 'Surface', SURFACES)}
        {text('agent_id', 'Agent id', 'context.agent_id')}
        {text('session_id', 'Session id', 'context.session_id')}
        {text('end_user_id', 'End-user id', 'hashed by the service')}
        {text('end_user_id_hash', 'End-user id hash', '64 hex characters')}
        {text('since', 'Since', '', 'datetime-local')}
        {text('until', 'Until', '', 'datetime-local')}
        {select('limit', 'Per page', PAGE_SIZES, null)}
      </div>
      <div className="row">
        <button type="submit">Apply filters</button>
        <button type="button" onClick={clear}>
          Clear
        </button>
      </div>
    </form>
  );
}

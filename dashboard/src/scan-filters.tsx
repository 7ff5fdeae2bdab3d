import { ACTIONS, SURFACES, type Action, type operations } from './api.ts';
import { FilterForm, named, useFilterFields } from './filter-form.tsx';
import { instant, localInput } from './format.ts';

/** What `GET /v1/scans` filters on (its query, less the cursor): every filter the route takes, and the page size. */
export type ScanQuery = Omit<NonNullable<operations['listScans']['parameters']['query']>, 'cursor'>;

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
  const { draft, setDraft, select, text } = useFilterFields<Draft>(() => draftOf(query));
  const clear = () => {
    setDraft(BLANK);
    onApply({});
  };
  return (
    <FilterForm className="scan-filters" onApply={() => onApply(queryOf(draft))} onClear={clear}>
      {select('action', 'Action', named(ACTIONS))}
      {select('surface', 'Surface', named(SURFACES))}
      {text('agent_id', 'Agent id', 'context.agent_id')}
      {text('session_id', 'Session id', 'context.session_id')}
      {text('end_user_id', 'End-user id', 'hashed by the service')}
      {text('end_user_id_hash', 'End-user id hash', '64 hex characters')}
      {text('since', 'Since', '', 'datetime-local')}
      {text('until', 'Until', '', 'datetime-local')}
      {select('limit', 'Per page', named(PAGE_SIZES), null)}
    </FilterForm>
  );
}

import { ACTIONS, SURFACES, type Action, type operations, type Surface } from './api.ts';
import { FilterForm, named, useFilterFields } from './filter-form.tsx';
import { instant } from './format.ts';

/** What `GET /v1/audit-events` filters on (its query, less the paging). */
export type AuditQuery = Omit<NonNullable<operations['listAuditEvents']['parameters']['query']>, 'cursor' | 'limit'>;
type Kind = NonNullable<AuditQuery['kind']>;
type ResourceType = NonNullable<AuditQuery['resource_type']>;

// Records over the API's enums: a value the API adds and these lack stops the build.
const KINDS: Record<Kind, string> = { detection: 'Detection (a scan decided)', management: 'Management (a change)' };
/** How each resource type is named to people. */
export const RESOURCE_TYPES: Record<ResourceType, string> = {
  api_key: 'API key',
  policy: 'Policy',
  webhook: 'Webhook',
  organization: 'Organization',
  invite: 'Invite',
  user: 'Member',
  redaction_policy: 'Redaction policy',
  labeled_event: 'Labeled event',
  redteam_run: 'Red-team run',
  legacy_analysis: 'Legacy analysis',
};

/** The form's values: every field a string, '' meaning "any". */
const BLANK = {
  kind: '',
  action: '',
  surface: '',
  resource_type: '',
  resource_id: '',
  actor_id: '',
  agent_id: '',
  detector: '',
  since: '',
  until: '',
};
type Draft = typeof BLANK;

/** The query for the form's values: blank fields are left out; the enums come from the selects' own options. */
function queryOf(d: Draft): AuditQuery {
  const q: AuditQuery = {
    kind: (d.kind || undefined) as Kind | undefined,
    action: (d.action || undefined) as Action | undefined,
    surface: (d.surface || undefined) as Surface | undefined,
    resource_type: (d.resource_type || undefined) as ResourceType | undefined,
    resource_id: d.resource_id.trim() || undefined,
    actor_id: d.actor_id.trim() || undefined,
    agent_id: d.agent_id.trim() || undefined,
    detector: d.detector.trim() || undefined,
    since: instant(d.since),
    until: instant(d.until),
  };
  return Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined)) as AuditQuery;
}

/**
 * The audit log's filters: what an event is (kind, action, surface, resource), who acted, and a time
 * window (since inclusive, until exclusive). **Apply** hands the query to `onApply` (so the list is not
 * fetched on every keystroke); **Clear** resets it.
 */
export function AuditFilters({ onApply }: { onApply: (query: AuditQuery) => void }) {
  const { draft, setDraft, select, text } = useFilterFields<Draft>(() => BLANK);
  const clear = () => {
    setDraft(BLANK);
    onApply({});
  };
  return (
    <FilterForm className="audit-filters" onApply={() => onApply(queryOf(draft))} onClear={clear}>
      {select('kind', 'Kind', KINDS)}
      {select('action', 'Action', named(ACTIONS))}
      {select('surface', 'Surface', named(SURFACES))}
      {select('resource_type', 'Resource type', RESOURCE_TYPES)}
      {text('resource_id', 'Resource id', 'ak_…, pol_…')}
      {text('actor_id', 'Actor', 'ak_… or user id')}
      {text('agent_id', 'Agent id', 'context.agent_id')}
      {text('detector', 'Detector', 'e.g. pii')}
      {text('since', 'Since', '', 'datetime-local')}
      {text('until', 'Until', '', 'datetime-local')}
    </FilterForm>
  );
}

import { pageQueryOnly, type RouteEntry } from './model.ts';

const event = {
  source: 'feedback',
  observed_at: '2026-11-20T10:00:00Z',
  input: 'reliability question',
  output: 'reliability answer',
  verdict: 'allowed',
  severity: 'info',
};

/**
 * Labeled events (api/routes/labeled-events/): append, list, get, delete (uses its event up).
 * Scopes `labeled_events:write` / `:read` / `:delete` (docs/api.md).
 */
export const LABELED_EVENT_ROUTES: readonly RouteEntry[] = [
  {
    method: 'GET',
    path: '/v1/labeled-events',
    scope: 'labeled_events:read',
    resource: 'labeled_event',
    list: pageQueryOnly,
    query: {
      source: ['feedback', 'redteam'],
      severity: ['info', 'critical'],
      training_consent: ['true', 'false'],
      observed_after: ['2026-01-01T00:00:00Z'],
      observed_before: ['2027-01-01T00:00:00Z'],
    },
    queryRefs: [{ at: ['run_id'], resource: 'redteam_run' }],
  },
  {
    method: 'POST',
    path: '/v1/labeled-events',
    scope: 'labeled_events:write',
    resource: 'labeled_event',
    bodies: (ids) => [
      {
        events: [
          {
            ...event,
            source: 'redteam',
            source_data: {
              run_id: ids.redteam_run,
              iteration_index: 0,
              attack_class: 'direct_injection',
              attack_subclass: 'override',
              corpus_entry_id: 'builtin-1',
              tokens_used: { prompt: 1 },
            },
          },
        ],
      },
      { events: [event, { ...event, source: 'reviewed', training_consent: true }] },
    ],
    bodyRefs: [{ at: ['events', 0, 'source_data', 'run_id'], resource: 'redteam_run' }],
  },
  { method: 'GET', path: '/v1/labeled-events/{event_id}', scope: 'labeled_events:read', resource: 'labeled_event' },
  {
    method: 'DELETE',
    path: '/v1/labeled-events/{event_id}',
    scope: 'labeled_events:delete',
    resource: 'labeled_event',
    consumes: true,
  },
];

import {
  appendLabeledEvents,
  deleteLabeledEvent,
  getLabeledEvent,
  listLabeledEvents,
  type LabeledEventDeps,
} from '../../../services/labeled-events.ts';
import { entries } from '../../../lib/error-catalogue.ts';
import type { AppServices } from '../../context.ts';
import { cursorProblem } from '../../openapi/problems.ts';
import { readCursor } from '../../pagination.ts';
import type { Routes } from '../../route.ts';
import { presentAppended, presentLabeledEvent, presentLabeledEventSummary } from './presenter.ts';
import {
  appendBody,
  cursorPayload,
  eventIdParams,
  LabeledEvent,
  LabeledEventPage,
  LabeledEventsAppended,
  listQuery,
} from './schema.ts';

const LIST = 'labeled_events';

/**
 * Labeled events (docs/api.md, Labeled events): append `POST /v1/labeled-events` (201
 * `{accepted, event_ids}`, scope labeled_events:write), list `GET /v1/labeled-events` and get
 * `GET /v1/labeled-events/{event_id}` (labeled_events:read), delete `DELETE
 * /v1/labeled-events/{event_id}` (204, labeled_events:delete).
 */
export function labeledEventRoutes(routes: Routes, s: AppServices): void {
  const deps: LabeledEventDeps = { db: s.db, clock: s.clock, redaction: s.redaction };

  routes.post('/v1/labeled-events', {
    operationId: 'createLabeledEvent',
    access: 'labeled_events:write',
    body: appendBody,
    responds: { status: 201, body: LabeledEventsAppended, description: 'Every event was stored.' },
    errors: [
      entries.labeledEventEvidenceNotFound,
      entries.labeledEventUnknownRun,
      entries.labeledEventIdentifierPii,
      entries.overloaded,
      entries.redactionDeadlineExceeded,
    ],
    handler: async ({ res, principal, body }) => {
      res.status(201).json(presentAppended(await appendLabeledEvents(deps, principal.org_id, body.events)));
    },
  });

  routes.get('/v1/labeled-events', {
    operationId: 'listLabeledEvents',
    access: 'labeled_events:read',
    query: listQuery,
    responds: { status: 200, body: LabeledEventPage },
    errors: [cursorProblem(LIST)],
    handler: async ({ res, principal, query }) => {
      const after = readCursor(s.cursors, LIST, principal.org_id, query.cursor, cursorPayload);
      const { rows, more } = await listLabeledEvents(deps, principal.org_id, query, after);
      const last = rows.at(-1);
      res.json({
        data: rows.map(presentLabeledEventSummary),
        next_cursor:
          more && last
            ? s.cursors.encode(LIST, principal.org_id, { observed_at: last.observed_at.toISOString(), id: last.id })
            : null,
      });
    },
  });

  routes.get('/v1/labeled-events/:event_id', {
    operationId: 'getLabeledEvent',
    access: 'labeled_events:read',
    params: eventIdParams,
    responds: { status: 200, body: LabeledEvent },
    errors: [entries.labeledEventNotFound],
    handler: async ({ res, principal, params }) => {
      res.json(presentLabeledEvent(await getLabeledEvent(deps, principal.org_id, params.event_id)));
    },
  });

  routes.delete('/v1/labeled-events/:event_id', {
    operationId: 'deleteLabeledEvent',
    access: 'labeled_events:delete',
    params: eventIdParams,
    responds: { status: 204, description: 'Deleted.' },
    errors: [entries.labeledEventNotFound],
    handler: async ({ req, res, principal, params }) => {
      await deleteLabeledEvent(deps, principal.org_id, params.event_id, { id: principal.actor_id, requestId: req.id });
      res.status(204).send();
    },
  });
}

import { useCallback, useState } from 'react';
import type { Client, Session } from './api.ts';
import { when } from './format.ts';
import { OneTimeSecret } from './one-time-secret.tsx';
import { ProblemView } from './problem-view.tsx';
import { Link, useRoute } from './router.tsx';
import { usePaged } from './use-paged.ts';
import { WebhookDetail } from './webhook-detail.tsx';
import { NewWebhook, type Webhook, type WebhookWithSecret } from './webhook-new.tsx';
import './webhooks.css';

/**
 * The Webhooks page: at `webhooks` the organization's webhooks and a form to create one (its signing
 * secret shown once); at `webhooks/<id>` one webhook's settings, its deliveries, redelivery, secret
 * rotation and deletion.
 */
export function Webhooks({ client }: Session) {
  const { segments } = useRoute();
  const id = segments[1];
  return id ? <WebhookDetail key={id} client={client} id={id} /> : <WebhookList client={client} />;
}

/** The webhooks (`GET /v1/webhooks`, newest first, a page at a time) and the create form. */
function WebhookList({ client }: { client: Client }) {
  const fetchPage = useCallback((cursor?: string) => client.webhooks.list(cursor ? { cursor } : {}), [client]);
  const hooks = usePaged(fetchPage);
  const [created, setCreated] = useState<WebhookWithSecret | null>(null);

  const onCreated = (hook: WebhookWithSecret) => {
    setCreated(hook);
    hooks.reload();
  };

  return (
    <section aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhooks</h2>
      <p className="hint">
        Each webhook receives the events it subscribes to as signed HTTPS POSTs; open one for its deliveries.
      </p>
      {created && (
        <OneTimeSecret
          heading={
            <>
              Webhook <Link to={`webhooks/${encodeURIComponent(created.id)}`}>{created.url}</Link> created. This is its
              signing secret: receivers check each delivery&apos;s Service-Signature header with it.
            </>
          }
          secret={created.secret}
          onDismiss={() => setCreated(null)}
        />
      )}
      {hooks.error !== null && <ProblemView error={hooks.error} />}
      {hooks.items === null && hooks.error === null && <p>Loading…</p>}
      {hooks.items && <WebhookTable hooks={hooks.items} />}
      {hooks.next && (
        <button type="button" onClick={hooks.loadMore} disabled={hooks.loading}>
          Load more
        </button>
      )}
      <NewWebhook client={client} onCreated={onCreated} />
    </section>
  );
}

/** The webhooks, each URL a link to its page. */
function WebhookTable({ hooks }: { hooks: Webhook[] }) {
  if (hooks.length === 0) return <p className="empty">This organization has no webhooks yet.</p>;
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">URL</th>
          <th scope="col">Description</th>
          <th scope="col">Events</th>
          <th scope="col">Content</th>
          <th scope="col">Last failure</th>
          <th scope="col">Created</th>
        </tr>
      </thead>
      <tbody>
        {hooks.map((hook) => (
          <tr key={hook.id} data-webhook-id={hook.id}>
            <td className="webhook-url">
              <Link to={`webhooks/${encodeURIComponent(hook.id)}`}>{hook.url}</Link>
            </td>
            <td>{hook.description ?? ''}</td>
            <td>{hook.events.join(' ')}</td>
            <td>{hook.include_content ? 'included' : 'counts only'}</td>
            <td>{when(hook.last_failure_at, 'never')}</td>
            <td>{when(hook.created_at)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

import { useCallback, useId, useState } from 'react';
import type { Client, components } from './api.ts';
import { when } from './format.ts';
import { ProblemView } from './problem-view.tsx';
import { usePaged } from './use-paged.ts';

type Delivery = components['schemas']['WebhookDelivery'];
type Status = Delivery['status'];

/**
 * What each delivery status means, in the order a delivery goes through them. A record, so the
 * compiler refuses it when the API adds a status it does not explain.
 */
const STATUSES: Record<Status, string> = {
  pending: 'queued: the first attempt is about to be made',
  failed: 'the latest attempt failed; a retry is scheduled',
  succeeded: 'delivered: the receiver answered 2xx',
  dead_lettered: 'every attempt failed; no more retries',
};

/** Only a finished delivery can be redelivered: the others still have attempts scheduled. */
const isFinal = (d: Delivery) => d.status === 'succeeded' || d.status === 'dead_lettered';

/**
 * A webhook's deliveries (`GET /v1/webhooks/{id}/deliveries`, newest first, a page at a time),
 * filtered by status, with **Refresh** (deliveries change in the background) and **Redeliver** for a
 * finished one (a new attempt chain of the same event).
 */
export function WebhookDeliveries({
  client,
  webhookId,
  onRefresh,
}: {
  client: Client;
  webhookId: string;
  /** Called on Refresh, so the page can reload what else changes with deliveries. */
  onRefresh: () => void;
}) {
  const ids = useId();
  const [status, setStatus] = useState<Status | ''>('');
  const fetchPage = useCallback(
    (cursor?: string) =>
      client.webhooks.listDeliveries(webhookId, { ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) }),
    [client, webhookId, status],
  );
  const deliveries = usePaged(fetchPage);

  return (
    <div className="webhook-deliveries">
      <h3>Deliveries</h3>
      <div className="row">
        <label htmlFor={`${ids}-status`}>
          Status
          <select id={`${ids}-status`} value={status} onChange={(e) => setStatus(e.target.value as Status | '')}>
            <option value="">any</option>
            {Object.keys(STATUSES).map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          onClick={() => {
            deliveries.reload();
            onRefresh();
          }}
          disabled={deliveries.loading}
        >
          Refresh
        </button>
      </div>
      {deliveries.error !== null && <ProblemView error={deliveries.error} />}
      {deliveries.items === null && deliveries.error === null && <p>Loading…</p>}
      {deliveries.items && (
        <DeliveryTable deliveries={deliveries.items} client={client} onRedelivered={deliveries.reload} />
      )}
      {deliveries.next && (
        <button type="button" onClick={deliveries.loadMore} disabled={deliveries.loading}>
          Load more
        </button>
      )}
    </div>
  );
}

/** The deliveries, one row each: what, how it went, when, and the receiver's answer. */
function DeliveryTable(props: { deliveries: Delivery[]; client: Client; onRedelivered: () => void }) {
  if (props.deliveries.length === 0)
    return <p className="empty">No deliveries yet: one is made for each event this webhook subscribes to.</p>;
  return (
    <table className="deliveries">
      <thead>
        <tr>
          <th scope="col">Event</th>
          <th scope="col">Status</th>
          <th scope="col">Attempts</th>
          <th scope="col">HTTP</th>
          <th scope="col">Response</th>
          <th scope="col">Times</th>
          <th scope="col">
            <span className="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {props.deliveries.map((d) => (
          <DeliveryRow key={d.id} delivery={d} client={props.client} onRedelivered={props.onRedelivered} />
        ))}
      </tbody>
    </table>
  );
}

/** One delivery, and its Redeliver button (failures shown in the row). */
function DeliveryRow({
  delivery: d,
  client,
  onRedelivered,
}: {
  delivery: Delivery;
  client: Client;
  onRedelivered: () => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  async function redeliver() {
    setBusy(true);
    setError(null);
    try {
      await client.webhooks.redeliver(d.id, {});
      onRedelivered();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }
  return (
    <tr data-delivery-id={d.id}>
      <td>
        {d.event_type}
        {d.redelivery_of && (
          <span className="tag" title={`Repeats ${d.redelivery_of}`}>
            redelivery
          </span>
        )}
        <div className="delivery-id">
          <code title="Service-Event-Id">{d.event_id}</code>
        </div>
      </td>
      <td>
        <span className={`delivery-status status-${d.status}`} title={STATUSES[d.status]}>
          {d.status.replace('_', ' ')}
        </span>
      </td>
      <td>{d.attempt}</td>
      <td>{d.response ? d.response.status_code : '—'}</td>
      <td className="delivery-response">
        {d.response && (
          <>
            <code>{d.response.body_preview || '(empty body)'}</code>{' '}
            <span className="hint">{d.response.duration_ms} ms</span>
          </>
        )}
        {d.error && <div className="delivery-error">{d.error}</div>}
      </td>
      <td className="delivery-times">
        <div>created {when(d.created_at)}</div>
        {d.delivered_at && <div>delivered {when(d.delivered_at)}</div>}
        {d.next_attempt_at && <div>next attempt {when(d.next_attempt_at)}</div>}
      </td>
      <td>
        {isFinal(d) && (
          <button type="button" onClick={() => void redeliver()} disabled={busy}>
            {busy ? 'Redelivering…' : 'Redeliver'}
          </button>
        )}
        {error !== null && <ProblemView error={error} />}
      </td>
    </tr>
  );
}

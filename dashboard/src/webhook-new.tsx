import { useId, useState, type FormEvent } from 'react';
import type { Client, components, operations } from './api.ts';
import { ProblemView } from './problem-view.tsx';

/** A webhook as listed (never its secret). */
export type Webhook = components['schemas']['Webhook'];
/** A webhook just created: the one answer that carries its signing secret. */
export type WebhookWithSecret = components['schemas']['WebhookWithSecret'];
/** An event type a webhook can subscribe to. */
export type EventType = Webhook['events'][number];
type CreateWebhookBody = operations['createWebhook']['requestBody']['content']['application/json'];

/**
 * What each event type is sent for, in the order the API documents them. A record, so the compiler
 * refuses it when the API adds an event type it does not explain.
 */
export const EVENT_TYPES: Record<EventType, string> = {
  'scan.blocked': 'a scan was blocked',
  'scan.flagged': 'a scan was flagged',
  'scan.warned': 'a scan was warned',
  'scan.allowed': 'a scan was allowed',
  'webhook.failing': 'a webhook of this organization keeps failing',
};

/** The request body for the form's values: a blank description is left out. */
function bodyOf(url: string, events: EventType[], description: string, includeContent: boolean): CreateWebhookBody {
  const body: CreateWebhookBody = { url: url.trim(), events, include_content: includeContent };
  if (description.trim()) body.description = description.trim();
  return body;
}

/**
 * Creating a webhook: its https URL (the API checks it is public and resolves), the event types it
 * subscribes to, a description and whether scan events carry the findings and content. `onCreated`
 * gets the webhook with its signing secret, which the API never shows again.
 */
export function NewWebhook({ client, onCreated }: { client: Client; onCreated: (hook: WebhookWithSecret) => void }) {
  const ids = useId();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<EventType[]>([]);
  const [description, setDescription] = useState('');
  const [includeContent, setIncludeContent] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const toggle = (type: EventType) =>
    setEvents((held) => (held.includes(type) ? held.filter((t) => t !== type) : [...held, type]));

  async function create(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onCreated(await client.webhooks.create(bodyOf(url, events, description, includeContent)));
      setUrl('');
      setEvents([]);
      setDescription('');
      setIncludeContent(false);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="new-key" onSubmit={create} aria-labelledby={`${ids}-title`}>
      <h3 id={`${ids}-title`}>New webhook</h3>
      <label htmlFor={`${ids}-url`}>URL</label>
      <input
        id={`${ids}-url`}
        className="webhook-url-input"
        type="url"
        value={url}
        onChange={(e) => setUrl(e.target.value)}
        placeholder="https://example.com/hooks/content-firewall"
        maxLength={2048}
        required
      />
      <p className="hint">https only, on a public address: deliveries are signed POSTs of JSON.</p>
      <fieldset>
        <legend>Events</legend>
        {Object.entries(EVENT_TYPES).map(([type, hint]) => (
          <label key={type} className="check" title={hint}>
            <input
              type="checkbox"
              checked={events.includes(type as EventType)}
              onChange={() => toggle(type as EventType)}
            />
            {type}
          </label>
        ))}
      </fieldset>
      <label htmlFor={`${ids}-description`}>Description</label>
      <input
        id={`${ids}-description`}
        className="webhook-url-input"
        value={description}
        onChange={(e) => setDescription(e.target.value)}
        maxLength={500}
      />
      <div className="row">
        <label className="check">
          <input type="checkbox" checked={includeContent} onChange={(e) => setIncludeContent(e.target.checked)} />
          Include findings and content in scan events
        </label>
      </div>
      <p className="hint">
        Content is sent only for scans that captured it and while it is retained; without this, events carry counts and
        labels only.
      </p>
      <button type="submit" disabled={busy || url.trim() === '' || events.length === 0}>
        {busy ? 'Creating…' : 'Create webhook'}
      </button>
      {error !== null && <ProblemView error={error} />}
    </form>
  );
}

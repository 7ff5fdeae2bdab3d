import { useEffect, useId, useState } from 'react';
import type { Client, components } from './api.ts';
import { ConfirmButton } from './confirm-button.tsx';
import { when } from './format.ts';
import { OneTimeSecret } from './one-time-secret.tsx';
import { ProblemView } from './problem-view.tsx';
import { Link, useRoute } from './router.tsx';
import { WebhookDeliveries } from './webhook-deliveries.tsx';
import type { Webhook } from './webhook-new.tsx';

type Rotation = components['schemas']['WebhookSecretRotation'];

/** How long the previous secret stays valid after a rotation (`grace_seconds`; the API's default is a day). */
const GRACE_CHOICES: readonly { seconds: number; label: string }[] = [
  { seconds: 0, label: 'not at all (retire it now)' },
  { seconds: 3_600, label: '1 hour' },
  { seconds: 86_400, label: '24 hours' },
  { seconds: 604_800, label: '7 days (the most)' },
];
const DEFAULT_GRACE = 86_400;

/**
 * One webhook's page (`webhooks/<id>`): its settings (`GET /v1/webhooks/{id}`), rotating its signing
 * secret with a grace period for the old one, deleting it, and its deliveries.
 */
export function WebhookDetail({ client, id }: { client: Client; id: string }) {
  const [hook, setHook] = useState<Webhook | null>(null);
  const [error, setError] = useState<unknown>(null);
  // Bumped by the deliveries' Refresh: a failure since the page opened changes `last_failure_at`.
  const [version, setVersion] = useState(0);

  useEffect(() => {
    let live = true;
    client.webhooks.get(id).then(
      (h) => {
        if (live) setHook(h);
      },
      (err: unknown) => {
        if (live) setError(err);
      },
    );
    return () => {
      live = false;
    };
  }, [client, id, version]);

  return (
    <section aria-labelledby="webhook-title">
      <p>
        <Link to="webhooks">← All webhooks</Link>
      </p>
      <h2 id="webhook-title">Webhook</h2>
      {error !== null && <ProblemView error={error} />}
      {hook === null && error === null && <p>Loading…</p>}
      {hook && (
        <>
          <Settings hook={hook} />
          <SecretAndDeletion client={client} hook={hook} />
          <WebhookDeliveries client={client} webhookId={hook.id} onRefresh={() => setVersion((v) => v + 1)} />
        </>
      )}
    </section>
  );
}

/** What the webhook is: where it sends, what, since when. */
function Settings({ hook }: { hook: Webhook }) {
  return (
    <dl className="facts">
      <dt>URL</dt>
      <dd className="webhook-url" data-testid="webhook-url">
        {hook.url}
      </dd>
      <dt>Id</dt>
      <dd>
        <code>{hook.id}</code>
      </dd>
      <dt>Description</dt>
      <dd>{hook.description ?? 'none'}</dd>
      <dt>Events</dt>
      <dd>{hook.events.join(' ')}</dd>
      <dt>Scan events carry</dt>
      <dd>{hook.include_content ? 'findings and captured content' : 'counts and labels only'}</dd>
      <dt>Active</dt>
      <dd>{hook.active ? 'yes' : 'no'}</dd>
      <dt>Last failure</dt>
      <dd data-testid="last-failure">{when(hook.last_failure_at, 'never')}</dd>
      <dt>Created</dt>
      <dd>{when(hook.created_at)}</dd>
    </dl>
  );
}

/** Rotating the signing secret (the new one shown once) and deleting the webhook. */
function SecretAndDeletion({ client, hook }: { client: Client; hook: Webhook }) {
  const ids = useId();
  const { go } = useRoute();
  const [grace, setGrace] = useState(DEFAULT_GRACE);
  const [rotation, setRotation] = useState<Rotation | null>(null);
  const graceLabel = GRACE_CHOICES.find((c) => c.seconds === grace)?.label ?? `${grace} s`;

  return (
    <div className="webhook-actions">
      <h3>Signing secret</h3>
      {rotation && (
        <OneTimeSecret
          heading={
            <>
              New signing secret: it signs every delivery from now on.{' '}
              <span data-testid="grace-expires">
                {rotation.grace_expires_at <= new Date().toISOString()
                  ? 'The previous secret is no longer accepted.'
                  : `The previous secret is still accepted until ${when(rotation.grace_expires_at)}.`}
              </span>
            </>
          }
          secret={rotation.secret}
          onDismiss={() => setRotation(null)}
        />
      )}
      <div className="row">
        <label htmlFor={`${ids}-grace`}>
          Keep the old secret valid for
          <select id={`${ids}-grace`} value={grace} onChange={(e) => setGrace(Number(e.target.value))}>
            {GRACE_CHOICES.map((c) => (
              <option key={c.seconds} value={c.seconds}>
                {c.label}
              </option>
            ))}
          </select>
        </label>
        <ConfirmButton
          label="Rotate secret"
          confirmLabel="Confirm rotate"
          question={`Rotate the signing secret? The old one stays valid for ${graceLabel}.`}
          onConfirm={async () => setRotation(await client.webhooks.rotateSecret(hook.id, { grace_seconds: grace }))}
        />
      </div>
      <p className="hint">
        During the grace period each delivery carries one signature per valid secret, so receivers can switch over
        without losing events.
      </p>
      <h3>Delete</h3>
      <ConfirmButton
        label="Delete webhook"
        confirmLabel="Confirm delete"
        question="Delete this webhook? Its deliveries, pending retries included, are deleted with it."
        onConfirm={async () => {
          await client.webhooks.delete(hook.id);
          go('webhooks');
        }}
      />
    </div>
  );
}

import type { Session } from './api.ts';

/** The Webhooks page: webhooks (to be built). */
export function Webhooks(_props: Session) {
  return (
    <section aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhooks</h2>
    </section>
  );
}

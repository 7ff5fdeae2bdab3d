import type { Session } from './api.ts';

/** The Analytics page: analytics (to be built). */
export function Analytics(_props: Session) {
  return (
    <section aria-labelledby="analytics-title">
      <h2 id="analytics-title">Analytics</h2>
    </section>
  );
}

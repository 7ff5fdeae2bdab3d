import type { Session } from './api.ts';

/** The Scans page: the organization's scans (to be built). */
export function Scans(_props: Session) {
  return (
    <section aria-labelledby="scans-title">
      <h2 id="scans-title">Scans</h2>
    </section>
  );
}

import type { Session } from './api.ts';

/** The Policies page: policies (to be built). */
export function Policies(_props: Session) {
  return (
    <section aria-labelledby="policies-title">
      <h2 id="policies-title">Policies</h2>
    </section>
  );
}

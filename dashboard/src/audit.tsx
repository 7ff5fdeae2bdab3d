import type { Session } from './api.ts';

/** The Audit page: the audit log (to be built). */
export function Audit(_props: Session) {
  return (
    <section aria-labelledby="audit-title">
      <h2 id="audit-title">Audit</h2>
    </section>
  );
}

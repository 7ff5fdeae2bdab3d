import type { Session } from './api.ts';

/** The Members page: members and invites (to be built). */
export function Members(_props: Session) {
  return (
    <section aria-labelledby="members-title">
      <h2 id="members-title">Members</h2>
    </section>
  );
}

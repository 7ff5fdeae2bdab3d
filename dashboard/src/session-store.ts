/**
 * "Keep me signed in in this tab": the one place the dashboard may keep a credential outside the
 * page's memory, and only when the person ticks it at sign-in. The credential (API key or SSO access
 * token) then lives in this tab's `sessionStorage`: a reload keeps the session, closing the tab
 * forgets it, other tabs never see it. The price: any script running on the page (an XSS) can read
 * it, where memory alone would be lost on the next load. Off by default (docs/dashboard.md).
 */
import type { Credential } from './api.ts';

const KEY = 'content-firewall.session';

/** The credential kept for this tab, or null (none kept, storage unavailable, or an entry not ours). */
export function keptCredential(): Credential | null {
  try {
    const raw = window.sessionStorage.getItem(KEY);
    if (raw === null) return null;
    const value = JSON.parse(raw) as Partial<Credential>;
    if ((value.kind === 'api_key' || value.kind === 'token') && typeof value.value === 'string' && value.value)
      return { kind: value.kind, value: value.value };
  } catch {
    // Storage refused (privacy settings) or a corrupt entry: nothing is kept.
  }
  forgetCredential();
  return null;
}

/** Keeps `credential` for this tab until it closes or the person signs out. */
export function keepCredential(credential: Credential): void {
  try {
    window.sessionStorage.setItem(KEY, JSON.stringify(credential));
  } catch {
    // Storage refused: the session stays in memory only, as without the choice.
  }
}

/** Forgets the kept credential (sign-out, or a kept one the API no longer accepts). */
export function forgetCredential(): void {
  try {
    window.sessionStorage.removeItem(KEY);
  } catch {
    // Nothing could have been kept.
  }
}

import { useEffect, useState } from 'react';
import { fetchSsoConfig, type SsoConfig } from './sso.ts';

/** The deployment's SSO sign-in settings as a component sees them while `/dashboard/config.json` is read. */
export interface SsoConfigState {
  /** undefined while reading; null: this deployment offers no SSO sign-in. */
  sso: SsoConfig | null | undefined;
  /** Why the configuration could not be read, or null. */
  error: unknown;
}

/** Reads the SSO settings once on mount (sso.ts fetchSsoConfig); an answer after unmount is dropped. */
export function useSsoConfig(): SsoConfigState {
  const [state, setState] = useState<SsoConfigState>({ sso: undefined, error: null });
  useEffect(() => {
    let live = true;
    fetchSsoConfig().then(
      (sso) => live && setState({ sso, error: null }),
      (error: unknown) => live && setState({ sso: undefined, error }),
    );
    return () => {
      live = false;
    };
  }, []);
  return state;
}

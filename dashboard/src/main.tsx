/**
 * The dashboard's entry point: renders the app into index.html's `#root` — or, in the SSO sign-in's
 * popup come back from the identity provider, hands its answer to the opener (sso-callback.tsx).
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app.tsx';
import { handleSsoCallback, SsoCallback } from './sso-callback.tsx';
import './styles.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>{handleSsoCallback() ? <SsoCallback /> : <App />}</StrictMode>,
);

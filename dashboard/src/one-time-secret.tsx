import { useState, type ReactNode } from 'react';

/**
 * A secret the API shows once (a new or rotated API key, a webhook's signing secret), with a button
 * that copies it. It lives in the caller's state only: **Done** forgets it.
 */
export function OneTimeSecret({
  heading,
  secret,
  onDismiss,
}: {
  heading: ReactNode;
  secret: string;
  onDismiss: () => void;
}) {
  const [copied, setCopied] = useState<boolean | null>(null);
  const copy = () =>
    navigator.clipboard.writeText(secret).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  return (
    <div className="secret" role="status">
      <p>{heading} Copy it now: it is not shown again.</p>
      <code data-testid="new-secret">{secret}</code>
      <div className="row">
        <button type="button" onClick={copy}>
          Copy
        </button>
        <button type="button" onClick={onDismiss}>
          Done
        </button>
        {copied === true && <span>Copied.</span>}
        {copied === false && <span>Copying was refused: select the secret and copy it by hand.</span>}
      </div>
    </div>
  );
}

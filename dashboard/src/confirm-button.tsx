import { useState, type ReactNode } from 'react';
import { ProblemView } from './problem-view.tsx';

/**
 * A button for an action that cannot be undone: the first click asks `question`, the confirm button
 * (focused, so Enter confirms and Tab reaches Cancel) runs `onConfirm`; its failure is shown in place.
 */
export function ConfirmButton(props: {
  label: string;
  confirmLabel: string;
  question: ReactNode;
  onConfirm: () => Promise<void>;
}) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  async function confirm() {
    setBusy(true);
    setError(null);
    try {
      await props.onConfirm();
      setConfirming(false);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }
  if (!confirming)
    return (
      <button type="button" onClick={() => setConfirming(true)}>
        {props.label}
      </button>
    );
  return (
    <div className="confirm">
      <span>{props.question}</span>
      <button type="button" className="danger" onClick={() => void confirm()} disabled={busy} autoFocus>
        {props.confirmLabel}
      </button>
      <button type="button" onClick={() => setConfirming(false)}>
        Cancel
      </button>
      {error !== null && <ProblemView error={error} />}
    </div>
  );
}

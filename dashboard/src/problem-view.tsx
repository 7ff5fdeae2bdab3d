import { ContentFirewallError } from './api.ts';

/**
 * An error, as the person needs it to act or to ask the operator: the problem's title and detail,
 * its stable code and status, the validation issues if any, and the request id to quote. Anything
 * that is not an answer of the API (the network is down, say) shows its message.
 */
export function ProblemView({ error }: { error: unknown }) {
  if (!(error instanceof ContentFirewallError))
    return (
      <div className="problem" role="alert">
        <strong>Request failed</strong>
        <p>{error instanceof Error ? error.message : String(error)}</p>
      </div>
    );
  return (
    <div className="problem" role="alert">
      <strong className="problem-title">{error.title}</strong>
      {error.detail && <p className="problem-detail">{error.detail}</p>}
      {error.errors.length > 0 && (
        <ul>
          {error.errors.map((issue) => (
            <li key={`${issue.path}:${issue.message}`}>
              <code>{issue.path || '(body)'}</code> {issue.message}
            </li>
          ))}
        </ul>
      )}
      <dl className="problem-facts">
        <dt>Code</dt>
        <dd>
          <code className="problem-code">{error.code}</code> (HTTP {error.status})
        </dd>
        <dt>Request id</dt>
        <dd>
          <code className="problem-request-id">{error.requestId ?? 'none'}</code>
        </dd>
      </dl>
    </div>
  );
}

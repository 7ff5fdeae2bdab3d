/**
 * A policy body in words: its rules in evaluation order, each condition as a sentence, and the rest of
 * the document (default action, mode, detector thresholds, MCP lists). It reads the editor's draft,
 * which may be anything the person typed, so every field is checked before it is shown.
 */

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): string => (Array.isArray(v) ? v.map(String).join(', ') : String(v));

/** One condition of the grammar (docs/policies.md) as a phrase; a shape it does not know is shown as JSON. */
export function describeCondition(c: unknown): string {
  if (!isObject(c)) return JSON.stringify(c);
  if (Array.isArray(c.all_of)) return `all of (${c.all_of.map(describeCondition).join('; ')})`;
  if (Array.isArray(c.any_of)) return `any of (${c.any_of.map(describeCondition).join('; ')})`;
  if ('not' in c) return `not (${describeCondition(c.not)})`;
  const d = String(c.detector);
  if ('score_above' in c) return `${d} score > ${String(c.score_above)}`;
  if ('score_below' in c) return `${d} score < ${String(c.score_below)}`;
  if ('label_in' in c)
    return `${d} finds ${list(c.label_in)}${'min_confidence' in c ? ` (confidence ≥ ${String(c.min_confidence)})` : ''}`;
  if ('surface_in' in c) return `surface is ${list(c.surface_in)}`;
  if ('surface_not_in' in c) return `surface is not ${list(c.surface_not_in)}`;
  const f = String(c.context);
  if ('equals' in c) return `${f} = "${String(c.equals)}"`;
  if ('prefix' in c) return `${f} starts with "${String(c.prefix)}"`;
  if ('in' in c) return `${f} is one of ${list(c.in)}`;
  if ('present' in c) return c.present ? `${f} is given` : `${f} is not given`;
  if ('content_length_above' in c) return `text longer than ${String(c.content_length_above)} characters`;
  if ('content_length_below' in c) return `text shorter than ${String(c.content_length_below)} characters`;
  return JSON.stringify(c);
}

/** A rule's conditions (its `when.all_of`), or nothing when the draft does not hold that shape. */
const conditionsOf = (rule: Record<string, unknown>): unknown[] =>
  isObject(rule.when) && Array.isArray(rule.when.all_of) ? rule.when.all_of : [];

/** An action as the badge the Playground shows. */
export function ActionBadge({ action, testId }: { action: unknown; testId?: string }) {
  const a = String(action);
  return (
    <span className={`action action-${a}`} data-testid={testId}>
      {a}
    </span>
  );
}

/** A validation issue of the API (`errors[]` of `request.validation_failed`): a dotted JSON path and a message. */
export interface Issue {
  path: string;
  message: string;
}

/**
 * The rules table and the other settings of `body` (a policy, or the editor's parsed draft); each
 * rule shows the `issues` whose path is inside it, so a refused save points at the rule to fix.
 */
export function PolicySummary({ body, issues = [] }: { body: unknown; issues?: readonly Issue[] }) {
  if (!isObject(body)) return <p className="empty">The body is not a JSON object.</p>;
  const rules = Array.isArray(body.rules) ? body.rules.filter(isObject) : [];
  const config = isObject(body.detector_config) ? Object.entries(body.detector_config) : [];
  const mcp = ['allowed_mcp_servers', 'blocked_mcp_servers', 'allowed_mcp_tools', 'blocked_mcp_tools'].filter(
    (k) => Array.isArray(body[k]) && (body[k] as unknown[]).length > 0,
  );
  return (
    <div className="policy-summary" data-testid="policy-summary">
      {rules.length === 0 ? (
        <p className="empty">No rules: the thresholds and the default action decide every scan.</p>
      ) : (
        <table>
          <caption>Rules, in order: the first whose conditions all hold decides</caption>
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Rule</th>
              <th scope="col">When all of</th>
              <th scope="col">Then</th>
            </tr>
          </thead>
          <tbody>
            {rules.map((rule, i) => (
              <tr key={i}>
                <td>{i + 1}</td>
                <td>
                  {String(rule.name ?? '(no name)')}
                  {typeof rule.id === 'string' && <code className="rule-id">{rule.id}</code>}
                  <RuleIssues
                    issues={issues.filter((x) => x.path === `rules.${i}` || x.path.startsWith(`rules.${i}.`))}
                  />
                </td>
                <td>
                  <ul className="conditions">
                    {conditionsOf(rule).map((c, j) => (
                      <li key={j}>{describeCondition(c)}</li>
                    ))}
                  </ul>
                </td>
                <td>
                  <ActionBadge action={isObject(rule.then) ? rule.then.action : undefined} />
                  {isObject(rule.then) && Array.isArray(rule.then.notify) && rule.then.notify.length > 0 && (
                    <span className="hint"> notifies {list(rule.then.notify)}</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <dl className="facts">
        <dt>Otherwise</dt>
        <dd>
          detector thresholds, then <ActionBadge action={body.default_action} />
        </dd>
        <dt>Mode</dt>
        <dd>{body.mode === 'observe' ? 'observe (answers allowed; records what enforce would do)' : 'enforce'}</dd>
        <dt>Default</dt>
        <dd data-testid="summary-default">
          {body.is_default === true
            ? 'yes: it decides every scan that names no policy'
            : 'no: it decides only the scans that name it (options.policy_id); set "is_default": true to apply it to the rest'}
        </dd>
        {config.length > 0 && (
          <>
            <dt>Thresholds</dt>
            <dd>
              {config
                .map(([name, c]) =>
                  isObject(c) && c.enabled === false
                    ? `${name}: off`
                    : `${name}: ${['warn_above', 'flag_above', 'block_above']
                        .filter((k) => isObject(c) && k in c)
                        .map((k) => `${k.replace('_above', '')} > ${String((c as Record<string, unknown>)[k])}`)
                        .join(', ')}`,
                )
                .join('; ')}
            </dd>
          </>
        )}
        {mcp.length > 0 && (
          <>
            <dt>MCP lists</dt>
            <dd>{mcp.map((k) => `${k.replaceAll('_', ' ')}: ${(body[k] as unknown[]).length}`).join('; ')}</dd>
          </>
        )}
      </dl>
    </div>
  );
}

/** The issues found in one rule, each with its path. */
function RuleIssues({ issues }: { issues: readonly Issue[] }) {
  if (issues.length === 0) return null;
  return (
    <ul className="rule-issues">
      {issues.map((x) => (
        <li key={`${x.path}:${x.message}`}>
          <code>{x.path}</code> {x.message}
        </li>
      ))}
    </ul>
  );
}

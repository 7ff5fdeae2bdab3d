/**
 * Public entry point of the package (`import … from 'content-firewall'`): the API client. It runs in
 * Node ≥ 20 and in browsers (no `node:` import). Webhook signature verification needs `node:crypto`
 * and lives at `content-firewall/webhooks` (client/webhooks.ts).
 */
export {
  createClient,
  type ContentFirewallClient,
  type Operation,
  type Scan,
  type ScanDetectorEvent,
  type ScanEvent,
} from './client.ts';
export { ContentFirewallError, UNEXPECTED_RESPONSE, type Problem, type ValidationIssue } from './errors.ts';
export {
  OPERATIONS,
  type OperationKey,
  type OperationSpec,
  type ArgsOf,
  type ResultOf,
  type QueryOf,
  type BodyOf,
} from './operations.ts';
export { paginate, type Page, type ItemOf } from './pagination.ts';
export type { RetryOptions } from './retry.ts';
export { EventStreamParser, type ServerSentEvent } from './sse.ts';
export type { ClientOptions, RequestOptions } from './transport.ts';
export { CLIENT_API_VERSION, CLIENT_VERSION } from './version.ts';
export type { paths, components, operations } from './api-types.ts';

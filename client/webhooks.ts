/**
 * Entry point for webhook receivers (`import … from 'content-firewall/webhooks'`): signing and
 * verification of deliveries. Node only (it uses `node:crypto`), which is why the main entry does not
 * re-export it.
 */
export {
  signWebhookPayload,
  verifyWebhookSignature,
  WebhookSignatureError,
  InvalidWebhookSignatureError,
  WebhookTimestampExpiredError,
  DEFAULT_TOLERANCE_SECONDS,
  type VerifyWebhookOptions,
  type WebhookSignatureErrorCode,
} from './webhook-signature.ts';

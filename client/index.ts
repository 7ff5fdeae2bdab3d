/** Public entry point of the package for webhook receivers (`import … from 'content-firewall'`). */
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

import { createHmac, timingSafeEqual } from 'node:crypto';

/*
 * Signing and verification of outbound webhook deliveries.
 *
 * Header `Service-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>…]`, where each `v1` is the hex
 * HMAC-SHA256 of `{t}.{raw body}` keyed with the UTF-8 bytes of one signing secret (the whole
 * `whsec_…` string). During a secret rotation the sender adds one `v1` per valid secret.
 *
 * This file depends on node:crypto only, so receivers may copy it as is.
 */

/** Default symmetric window, in seconds, between the signature's `t` and the receiver's clock. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Longest `Service-Signature` value accepted; a real one with a handful of secrets is ~300 bytes. */
export const MAX_SIGNATURE_HEADER_LENGTH = 8 * 1024;

export type WebhookSignatureErrorCode = 'invalid_signature' | 'timestamp_expired';

/** A delivery that must be refused (answer 400 and do not parse the body). */
export class WebhookSignatureError extends Error {
  readonly code: WebhookSignatureErrorCode;

  constructor(code: WebhookSignatureErrorCode, message: string) {
    super(message);
    this.name = new.target.name;
    this.code = code;
  }
}

/** The header is missing or malformed, or no `v1` matches any secret. */
export class InvalidWebhookSignatureError extends WebhookSignatureError {
  constructor(message = 'No valid webhook signature found') {
    super('invalid_signature', message);
  }
}

/** The signature is valid but its timestamp is outside the tolerance (a replay or a skewed clock). */
export class WebhookTimestampExpiredError extends WebhookSignatureError {
  readonly timestamp: number;

  constructor(timestamp: number, nowSeconds: number, toleranceSeconds: number) {
    super(
      'timestamp_expired',
      `Webhook timestamp ${timestamp} is ${Math.abs(nowSeconds - timestamp)} s from now, outside the ${toleranceSeconds} s tolerance`,
    );
    this.timestamp = timestamp;
  }
}

export interface VerifyWebhookOptions {
  /** Largest accepted |now − t| in seconds; default 300. */
  toleranceSeconds?: number | undefined;
  /** The receiver's clock: a Date, or milliseconds since the epoch; default `Date.now()`. */
  now?: Date | number | undefined;
}

function bodyBytes(rawBody: string | Uint8Array): Uint8Array {
  if (typeof rawBody === 'string') return Buffer.from(rawBody, 'utf8');
  if (rawBody instanceof Uint8Array) return rawBody;
  throw new TypeError('rawBody must be the raw request body as a string or Uint8Array (not a parsed object)');
}

function signatureOf(secret: string, timestamp: number, body: Uint8Array): Buffer {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.`).update(body).digest();
}

function checkSecrets(secrets: readonly string[]): void {
  if (secrets.length === 0) throw new TypeError('At least one webhook signing secret is required');
  for (const s of secrets) {
    if (typeof s !== 'string' || s.length === 0)
      throw new TypeError('Webhook signing secrets must be non-empty strings');
  }
}

/**
 * The `Service-Signature` header value for `rawBody`: `t=<timestampSeconds>` then one `v1=` per
 * secret, in the given order.
 * @throws TypeError when `secrets` is empty or holds an empty string, or the timestamp is not a positive integer.
 */
export function signWebhookPayload(
  rawBody: string | Uint8Array,
  secrets: readonly string[],
  timestampSeconds: number,
): string {
  checkSecrets(secrets);
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds <= 0) {
    throw new TypeError('timestampSeconds must be a positive integer (Unix seconds)');
  }
  const body = bodyBytes(rawBody);
  const parts = [`t=${timestampSeconds}`];
  for (const secret of secrets) parts.push(`v1=${signatureOf(secret, timestampSeconds, body).toString('hex')}`);
  return parts.join(',');
}

interface ParsedHeader {
  timestamp: number;
  signatures: Buffer[];
}

const TIMESTAMP = /^[1-9][0-9]{0,15}$/;
const HEX = /^(?:[0-9a-fA-F]{2})+$/;

/** The header's timestamp and `v1` signatures, or null when it is malformed. Unknown schemes are skipped. */
function parseHeader(header: string): ParsedHeader | null {
  if (header.length > MAX_SIGNATURE_HEADER_LENGTH) return null;
  let timestamp: number | null = null;
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) return null;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (timestamp !== null || !TIMESTAMP.test(value)) return null;
      timestamp = Number(value);
      if (!Number.isSafeInteger(timestamp)) return null;
    } else if (key === 'v1') {
      if (!HEX.test(value)) return null;
      signatures.push(Buffer.from(value, 'hex'));
    } else if (key.length === 0) {
      return null;
    }
  }
  if (timestamp === null || signatures.length === 0) return null;
  return { timestamp, signatures };
}

function toleranceOf(options: VerifyWebhookOptions | undefined): number {
  const tolerance = options?.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (typeof tolerance !== 'number' || !Number.isFinite(tolerance) || tolerance < 0) {
    throw new TypeError('toleranceSeconds must be a finite, non-negative number');
  }
  return tolerance;
}

function nowSecondsOf(options: VerifyWebhookOptions | undefined): number {
  const now = options?.now ?? Date.now();
  const ms = now instanceof Date ? now.getTime() : now;
  if (typeof ms !== 'number' || !Number.isFinite(ms))
    throw new TypeError('now must be a valid Date or a number of milliseconds');
  return Math.floor(ms / 1000);
}

/**
 * Verifies a delivery's `Service-Signature` against the raw body (the exact bytes received) and
 * one or more signing secrets. Never parses the body.
 * @throws InvalidWebhookSignatureError (`code` 'invalid_signature') when the header is missing or malformed or no `v1` matches.
 * @throws WebhookTimestampExpiredError (`code` 'timestamp_expired') when a signature matches but `t` is outside the tolerance.
 * @throws TypeError on a programming error: no secrets, a bad tolerance or clock, a body that is not a string or bytes.
 */
export function verifyWebhookSignature(
  rawBody: string | Uint8Array,
  signatureHeader: string | null | undefined,
  secrets: string | readonly string[],
  options?: VerifyWebhookOptions,
): { timestamp: number } {
  const secretList: readonly string[] = typeof secrets === 'string' ? [secrets] : secrets;
  checkSecrets(secretList);
  const tolerance = toleranceOf(options);
  const nowSeconds = nowSecondsOf(options);
  const body = bodyBytes(rawBody);

  if (typeof signatureHeader !== 'string' || signatureHeader.length === 0) {
    throw new InvalidWebhookSignatureError('Missing Service-Signature header');
  }
  const parsed = parseHeader(signatureHeader);
  if (!parsed) throw new InvalidWebhookSignatureError('Malformed Service-Signature header');

  // Every provided signature is compared with every secret, without stopping at the first match,
  // so the time taken says nothing about which comparison succeeded.
  let matched = false;
  for (const secret of secretList) {
    const expected = signatureOf(secret, parsed.timestamp, body);
    for (const candidate of parsed.signatures) {
      if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) matched = true;
    }
  }
  if (!matched) throw new InvalidWebhookSignatureError('No signature matches the payload and secret');

  // Checked only after the MAC, so a forged header reports invalid_signature, never expired.
  if (Math.abs(nowSeconds - parsed.timestamp) > tolerance) {
    throw new WebhookTimestampExpiredError(parsed.timestamp, nowSeconds, tolerance);
  }
  return { timestamp: parsed.timestamp };
}

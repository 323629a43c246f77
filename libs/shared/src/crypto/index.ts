export { hmac, hmacSha256Hex, hmacSha256Base64, sha256Hex, type HmacEncoding } from './hmac';
export { safeEqual } from './safe-equal';
export { randomToken } from './random-token';
export { hashPassword, verifyPassword } from './password';
export {
  signSvcRequest,
  svcSignature,
  svcSigningString,
  SVC_NONCE_HEADER,
  SVC_SIGNATURE_HEADER,
  SVC_TIMESTAMP_HEADER,
  type SvcSignatureHeaders,
} from './svc-signature';
export {
  configuredSecretBox,
  createPurposeSecretBox,
  secretKeyRing,
  CONNECTION_SECRETS,
  WORKFLOW_SIGNING_SECRETS,
  type SecretBox,
  type SecretBoxPurpose,
} from './secret-box';

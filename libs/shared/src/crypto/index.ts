export { hmac, hmacSha256Hex, hmacSha256Base64, sha256Hex, type HmacEncoding } from './hmac';
export { safeEqual } from './safe-equal';
export { randomToken } from './random-token';
export { hashPassword, verifyPassword } from './password';

import { normaliseShopDomain } from '../providers/storefront-a/storefront-a-payload';
import { normaliseSourceUrl } from '../providers/storefront-b/storefront-b-payload';

/**
 * A storefront connection's `shop_identifier` is stored exactly as the receivers normalise
 * the shop header of a delivery (their functions, reused here), so a delivery finds its
 * connection however the admin typed the shop:
 *
 * - storefront_a: the shop domain (`x-storefront-a-shop-domain`), lower-cased.
 * - storefront_b: the shop URL (`x-storefront-b-webhook-source`): scheme and host lower-cased,
 *   no trailing `/`.
 */
export type ShopIdentifier = { ok: true; value: string } | { ok: false; message: string };

const MAX_LENGTH = 500;
const LABEL = '[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?';
const DOMAIN = new RegExp(`^${LABEL}(\\.${LABEL})+$`);

/** The stored form of what an admin typed, or why it cannot identify a shop of `platform`. */
export function shopIdentifierFor(
  platform: 'storefront_a' | 'storefront_b',
  input: string,
): ShopIdentifier {
  if (platform === 'storefront_a') {
    const domain = normaliseShopDomain(input);
    if (domain.length > 253 || !DOMAIN.test(domain)) {
      return {
        ok: false,
        message:
          'for storefront_a, shop_identifier must be the shop domain, e.g. my-shop.example.com (no https://, no path)',
      };
    }
    return { ok: true, value: domain };
  }
  // Checked before normalising, which would quietly drop credentials rather than refuse them.
  const url = normaliseSourceUrl(input);
  if (!isPlainWebUrl(input.trim()) || url.length > MAX_LENGTH) {
    return {
      ok: false,
      message: `for storefront_b, shop_identifier must be the shop's http(s) URL, e.g. https://shop.example.com (at most ${MAX_LENGTH} characters)`,
    };
  }
  return { ok: true, value: url };
}

/** http(s), a host, no credentials, query or fragment: what a platform sends as its source. */
function isPlainWebUrl(value: string): boolean {
  if (/\s/.test(value) || !URL.canParse(value)) return false;
  const url = new URL(value);
  return (
    (url.protocol === 'https:' || url.protocol === 'http:') &&
    url.hostname !== '' &&
    url.username === '' &&
    url.password === '' &&
    url.search === '' &&
    url.hash === ''
  );
}

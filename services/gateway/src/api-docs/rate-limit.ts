import type { Config } from '../config';

type Limits = Pick<Config, 'RATE_LIMIT_DEFAULT_PER_MINUTE' | 'RATE_LIMIT_PLANS'>;
interface Document {
  info: { description?: string } & Record<string, unknown>;
}

const START = '<!-- rate-limit -->';
const END = '<!-- /rate-limit -->';

/** The rate-limit paragraph of the reference, from the gateway's configured limits. */
export function rateLimitSection(limits: Limits): string {
  const plans = Object.entries(limits.RATE_LIMIT_PLANS)
    .map(([plan, n]) => `${plan}: ${n.toLocaleString('en-US')}`)
    .join(', ');
  return (
    `${START}\n\n**Rate limit:** ${limits.RATE_LIMIT_DEFAULT_PER_MINUTE.toLocaleString('en-US')} ` +
    `requests per minute per tenant on the default plan (per plan: ${plans}). Over it, the ` +
    'gateway answers 429 `RATE_LIMIT_EXCEEDED` with `details.retryAfter` (seconds) and a ' +
    `\`Retry-After\` header; every response carries \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\`.\n\n${END}`
  );
}

/** The document with its advertised rate limit taken from `limits` (the gateway's config). */
export function withRateLimit<D extends Document>(document: D, limits: Limits): D {
  const description = document.info.description ?? '';
  const at = description.indexOf(START);
  const end = description.indexOf(END);
  const section = rateLimitSection(limits);
  const next =
    at >= 0 && end > at
      ? description.slice(0, at) + section + description.slice(end + END.length)
      : `${description}\n\n${section}`;
  return {
    ...document,
    info: {
      ...document.info,
      description: next,
      'x-rate-limit': {
        defaultPerMinute: limits.RATE_LIMIT_DEFAULT_PER_MINUTE,
        plans: limits.RATE_LIMIT_PLANS,
      },
    },
  };
}

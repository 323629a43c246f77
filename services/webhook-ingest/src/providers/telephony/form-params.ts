import { parse } from 'node:querystring';
import { storableText } from '@crm/shared/inbound';

/** Form parameters in arrival order per key: a repeated key keeps every value. */
export type FormParams = Map<string, string[]>;

/**
 * The POST parameters of an `application/x-www-form-urlencoded` body, read from the raw
 * bytes. Flat, as Twilio signs them (no `a[b]` nesting); `+` is a space; no key limit
 * beyond the body size limit. Parsed whatever the content type says, so what is verified
 * is exactly what is processed.
 */
export function parseFormParams(rawBody: Buffer): FormParams {
  const params: FormParams = new Map();
  if (rawBody.length === 0) return params;
  // querystring.parse's result has no prototype: keys like `__proto__` are plain keys.
  const parsed = parse(rawBody.toString('utf8'), '&', '=', { maxKeys: 0 });
  for (const [key, value] of Object.entries(parsed)) {
    if (value === undefined) continue;
    params.set(key, Array.isArray(value) ? value : [value]);
  }
  return params;
}

/** The first value of a parameter, or undefined when absent or empty. */
export function firstParam(params: FormParams, key: string): string | undefined {
  const value = params.get(key)?.[0];
  return value === undefined || value === '' ? undefined : value;
}

/** The parameters as stored in `call_logs.payload`: a repeated key's values as an array. */
export function paramsAsJson(params: FormParams): Record<string, string | string[]> {
  return Object.fromEntries(
    [...params].map(([key, values]) => [key, values.length === 1 ? values[0] : values]),
  );
}

/**
 * The parameters with storableText applied to every key and value (a `%00` would otherwise
 * fail the call_logs INSERT): for storing, after the signature was checked over the values as
 * sent. Form bodies are flat, so there is no nesting to bound.
 */
export function storableParams(params: FormParams): FormParams {
  return new Map([...params].map(([key, values]) => [storableText(key), values.map(storableText)]));
}

import { firstParam, type FormParams } from './form-params';

/** The call a status callback is about, read from its form parameters. */
export interface CallUpdate {
  callSid: string;
  status: string;
  direction: string | null;
  from: string | null;
  to: string | null;
  durationSeconds: number | null;
}

const MAX_ID = 200;
const MAX_FIELD = 100;

/**
 * CallSid and CallStatus are what a call log needs; without either (or with values no real
 * provider sends, e.g. kilobytes long) the delivery is acknowledged and ignored.
 */
export function readCallUpdate(params: FormParams): CallUpdate | undefined {
  const callSid = firstParam(params, 'CallSid');
  const status = firstParam(params, 'CallStatus');
  if (!callSid || callSid.length > MAX_ID || !status || status.length > MAX_FIELD) {
    return undefined;
  }
  const duration = firstParam(params, 'CallDuration');
  return {
    callSid,
    status,
    direction: bounded(firstParam(params, 'Direction')),
    from: bounded(firstParam(params, 'From')),
    to: bounded(firstParam(params, 'To')),
    durationSeconds: duration && /^\d{1,9}$/.test(duration) ? Number(duration) : null,
  };
}

function bounded(value: string | undefined): string | null {
  return value === undefined ? null : value.slice(0, MAX_FIELD);
}

/**
 * The numbers to look the tenant up by, ours first: an outbound call (`outbound-api`,
 * `outbound-dial`) is placed FROM a tenant's number, anything else (`inbound`) is TO one.
 */
export function ownNumberFirst(call: CallUpdate): string[] {
  const sides = call.direction?.startsWith('outbound')
    ? [call.from, call.to]
    : [call.to, call.from];
  return sides.filter((n): n is string => Boolean(n));
}

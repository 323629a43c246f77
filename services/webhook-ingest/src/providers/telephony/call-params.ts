import { INTEGER_MAX } from '@crm/shared/inbound';
import { firstParam, type FormParams } from './form-params';

/** The call a status callback is about, read from its form parameters. */
export interface CallUpdate {
  callSid: string;
  status: string;
  direction: string | null;
  from: string | null;
  to: string | null;
  durationSeconds: number | null;
  /** Why a value the callback carries cannot be stored (then nothing of it is). */
  unstorable?: string;
}

const MAX_ID = 200;
const MAX_FIELD = 100;

/**
 * CallSid and CallStatus are what a call log needs; without either (or with values no real
 * provider sends, e.g. kilobytes long) the delivery is acknowledged and ignored. A CallDuration
 * that is not a whole number of seconds is stored as unknown (null); one beyond what
 * call_logs.duration_seconds (integer) holds makes the callback unstorable.
 */
export function readCallUpdate(params: FormParams): CallUpdate | undefined {
  const callSid = firstParam(params, 'CallSid');
  const status = firstParam(params, 'CallStatus');
  if (!callSid || callSid.length > MAX_ID || !status || status.length > MAX_FIELD) {
    return undefined;
  }
  const duration = firstParam(params, 'CallDuration');
  const seconds = duration !== undefined && /^\d+$/.test(duration) ? Number(duration) : null;
  const call: CallUpdate = {
    callSid,
    status,
    direction: bounded(firstParam(params, 'Direction')),
    from: bounded(firstParam(params, 'From')),
    to: bounded(firstParam(params, 'To')),
    durationSeconds: seconds,
  };
  if (seconds === null || seconds <= INTEGER_MAX) return call;
  return {
    ...call,
    durationSeconds: null,
    unstorable: `The CallDuration ${bounded(duration)} does not fit call_logs.duration_seconds (integer, at most ${INTEGER_MAX})`,
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

import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { nonPublicRange } from './address-class';

/*
 * The SSRF guard at send time: what a webhook connects to must be a public address (the rule
 * and its ranges are in address-class.ts). Saving a workflow already refuses literal
 * non-public hosts, but a DNS name can resolve anywhere, and rows saved before that rule
 * existed may still hold a literal, so every connection is checked here too.
 */

/** The error a refused address fails the connection with (its message ends up in the step). */
export class BlockedAddressError extends Error {
  readonly code = 'EBLOCKED';
  constructor(host: string, address: string, range: string) {
    super(
      host === address
        ? `blocked: ${address} is not a public address (${range})`
        : `blocked: ${host} resolves to ${address}, not a public address (${range})`,
    );
  }
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for http(s).Agent: resolves like dns.lookup, then refuses the connection when any
 * resolved address is not public, so the check runs at connect time on what DNS answered (a
 * name that points at 127.0.0.1 is refused too, and a rebinding answer is checked as it is used).
 */
export function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback) {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    for (const { address } of addresses) {
      const range = nonPublicRange(address);
      if (range) return callback(new BlockedAddressError(hostname, address, range), []);
    }
    if (options.all) return callback(null, addresses);
    const first = addresses[0];
    callback(null, first.address, first.family);
  });
}

/**
 * An IP literal in the URL never reaches `lookup` (node connects to it directly), so it is
 * checked here, before the request; returns the refusal, or undefined when allowed.
 */
export function refuseLiteral(hostname: string): BlockedAddressError | undefined {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (!isIP(bare)) return undefined;
  const range = nonPublicRange(bare);
  return range ? new BlockedAddressError(bare, bare, range) : undefined;
}

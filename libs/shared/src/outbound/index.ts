/*
 * Calls the platform makes to addresses a tenant or a client names (workflow webhooks, OAuth
 * Client ID Metadata Documents): the SSRF guard every such call goes through, so only public
 * addresses are reached.
 */
export { addressRange, nonPublicRange, nonPublicHost, describeRange } from './address-class';
export { BlockedAddressError, guardedLookup, refuseLiteral } from './address-guard';

/**
 * @crm/gateway's public entry: what other packages may use of the gateway (the test kit builds
 * a gateway app on the test database with it). Importing files under `src/` from outside the
 * package is not allowed, so the gateway's inside can change without breaking anyone.
 */
export { createApp, type AppOverrides } from './app';
export { configSchema, type Config } from './config';

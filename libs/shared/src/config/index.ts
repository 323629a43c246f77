export { loadConfig, ConfigError } from './load-config';
export { serviceEnv, port, positiveInt, type ServiceEnv } from './service-env';
export { trustProxy, type TrustProxy } from './trust-proxy';
export { rotatableKeyPair, secretKey, RESEALED_AT_START } from './key-pair';

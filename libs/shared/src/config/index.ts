export { loadConfig, ConfigError } from './load-config';
export { serviceEnv, port, type ServiceEnv } from './service-env';

export { loadConfig, ConfigError } from './load-config';
export { serviceEnv, port, positiveInt, type ServiceEnv } from './service-env';

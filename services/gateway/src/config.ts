import { port, serviceEnv } from '@crm/shared/config';

export const configSchema = serviceEnv.extend({
  GATEWAY_PORT: port(8080),
});

export type Config = ReturnType<typeof configSchema.parse>;

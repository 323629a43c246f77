import { port, serviceEnv } from '@crm/shared/config';

export const configSchema = serviceEnv.extend({
  CRM_API_PORT: port(4001),
});

export type Config = ReturnType<typeof configSchema.parse>;

import { port, serviceEnv } from '@crm/shared/config';

export const configSchema = serviceEnv.extend({
  MIGRATE_PORT: port(4005),
});

export type Config = ReturnType<typeof configSchema.parse>;

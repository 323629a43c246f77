import { port, serviceEnv } from '@crm/shared/config';

export const configSchema = serviceEnv.extend({
  AUTOMATION_PORT: port(4003),
});

export type Config = ReturnType<typeof configSchema.parse>;

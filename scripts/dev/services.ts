import { service as automation } from '../../services/automation/src/main';
import { service as crmApi } from '../../services/crm-api/src/main';
import { service as gateway } from '../../services/gateway/src/main';
import { service as mcpIngest } from '../../services/mcp-ingest/src/main';
import { service as migrate } from '../../services/migrate/src/main';
import { service as webhookIngest } from '../../services/webhook-ingest/src/main';

/** The six services, in the order the all-in-one start brings them up (gateway last). */
export const services = [crmApi, webhookIngest, automation, mcpIngest, migrate, gateway] as const;

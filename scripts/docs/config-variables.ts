import type { z } from 'zod';
import { configSchema as automation } from '../../services/automation/src/config';
import { configSchema as crmApi } from '../../services/crm-api/src/config';
import { configSchema as gateway } from '../../services/gateway/src/config';
import { configSchema as mcpIngest } from '../../services/mcp-ingest/src/config';
import { configSchema as migrate } from '../../services/migrate/src/config';
import { configSchema as webhookIngest } from '../../services/webhook-ingest/src/config';
import { ALSO_READ_BY, TOOL_VARIABLES } from './tool-variables';

/** Every service's config schema, by service name, in the order the reference lists them. */
export const CONFIG_SCHEMAS: ReadonlyArray<readonly [string, z.ZodObject]> = [
  ['gateway', gateway],
  ['crm-api', crmApi],
  ['webhook-ingest', webhookIngest],
  ['automation', automation],
  ['mcp-ingest', mcpIngest],
  ['migrate', migrate],
];

export const EVERY_SERVICE = 'every service';

/** One environment variable as the reference shows it. */
export interface ConfigVariable {
  name: string;
  default: string;
  /** Services first (or `every service`), then the tools. */
  readBy: string[];
  /** One description, or one per service when the services describe it differently. */
  descriptions: Array<{ service?: string; text: string }>;
}

/** The environment value a schema falls back to, as the reference shows it. */
export function defaultOf(schema: z.ZodType): string {
  const def = schema._zod.def as { type: string; in?: z.ZodType; defaultValue?: unknown };
  if (def.type === 'pipe' && def.in) return defaultOf(def.in);
  if (def.type !== 'default') return 'unset';
  const value = def.defaultValue;
  if (value === '') return 'none';
  return typeof value === 'string' ? `\`${value}\`` : String(value);
}

function fromSchemas(): ConfigVariable[] {
  const byName = new Map<string, ConfigVariable>();
  for (const [service, schema] of CONFIG_SCHEMAS) {
    for (const [name, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
      const text = field.description;
      if (!text) throw new Error(`${service}: ${name} has no .describe() in its config schema`);
      const entry = byName.get(name) ?? {
        name,
        default: defaultOf(field),
        readBy: [],
        descriptions: [],
      };
      entry.readBy.push(service);
      if (!entry.descriptions.some((d) => d.text === text)) {
        entry.descriptions.push({ service, text });
      }
      byName.set(name, entry);
    }
  }
  for (const entry of byName.values()) {
    if (entry.descriptions.length === 1) delete entry.descriptions[0].service;
    if (entry.readBy.length === CONFIG_SCHEMAS.length) entry.readBy = [EVERY_SERVICE];
    entry.readBy.push(...(ALSO_READ_BY[entry.name]?.readBy ?? []));
  }
  return [...byName.values()];
}

/** Every variable of the reference: the services' schemas, then the tools' own. */
export function configVariables(): ConfigVariable[] {
  const tools = TOOL_VARIABLES.map((v) => ({
    name: v.name,
    default: v.default,
    readBy: v.readBy,
    descriptions: [{ text: v.description }],
  }));
  return [...fromSchemas(), ...tools];
}

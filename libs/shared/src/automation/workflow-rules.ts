import { z } from 'zod';
// By path, not through the events index: the console imports this file by path too, and the
// index would bring the bus clients into its bundle.
import { PLATFORM_EVENT_TYPES } from '../events/event-types';
import { typeMatches } from '../events/subjects';

/*
 * The rules of a workflow's definition (trigger, conditions, webhook nodes) as zod schemas, in
 * one place: the automation service validates requests with them and the console's workflow
 * builder checks the same rules before sending (it imports this file by path; only zod and
 * the event list come with it).
 */

/** Most nodes one workflow may have (documented in docs/automations.md). */
export const MAX_NODES = 20;
/** Most conditions one trigger may have. */
export const MAX_CONDITIONS = 20;
/** Most custom headers one webhook node may send. */
export const MAX_HEADERS = 50;
export const MAX_URL_LENGTH = 2048;
export const WEBHOOK_METHODS = ['GET', 'POST', 'PUT', 'PATCH'] as const;
export const CONDITION_OPS = ['equals', 'not_equals', 'contains', 'exists'] as const;

/**
 * Headers a webhook node may not set: hop-by-hop and framing headers (the HTTP client owns
 * them), the ones the platform sets itself, and the Standard Webhooks signature headers.
 */
export const RESERVED_HEADERS = [
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'content-type',
  'user-agent',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
] as const;
const reserved = new Set<string>(RESERVED_HEADERS);

/** RFC 9110 token characters. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Visible characters, spaces and tabs; no CR, LF or NUL. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

const webhookUrl = z
  .string({ error: 'url is required' })
  .max(MAX_URL_LENGTH, { message: `url must be at most ${MAX_URL_LENGTH} characters` })
  .superRefine((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'url must be an absolute http(s) URL' });
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      ctx.addIssue({ code: 'custom', message: 'url must use http or https' });
    } else if (url.username || url.password) {
      ctx.addIssue({ code: 'custom', message: 'url must not carry credentials' });
    }
  });

const headers = z
  .record(
    z.string(),
    z
      .string({ error: 'header values must be strings' })
      .max(4096, { message: 'header values must be at most 4096 characters' })
      .regex(HEADER_VALUE, { message: 'header values must not contain control characters' }),
    { error: 'headers must be an object of string values' },
  )
  .superRefine((value, ctx) => {
    const names = Object.keys(value);
    if (names.length > MAX_HEADERS) {
      ctx.addIssue({ code: 'custom', message: `at most ${MAX_HEADERS} headers` });
    }
    for (const name of names) {
      if (!HEADER_NAME.test(name) || name.length > 200) {
        ctx.addIssue({ code: 'custom', path: [name], message: `invalid header name: ${name}` });
      } else if (reserved.has(name.toLowerCase())) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: `header ${name} is reserved and cannot be set`,
        });
      }
    }
  });

export const webhookNodeSchema = z.object({
  type: z.literal('webhook'),
  name: z.string().trim().min(1).max(200).optional(),
  config: z.object(
    {
      url: webhookUrl,
      method: z.enum(WEBHOOK_METHODS, {
        message: `method must be one of: ${WEBHOOK_METHODS.join(', ')}`,
      }),
      headers: headers.optional(),
    },
    { error: 'config must be an object' },
  ),
});

/** One node; a discriminated union on `type`, so new node types are new members. */
export const nodeSchema = z.discriminatedUnion('type', [webhookNodeSchema], {
  error: 'node type must be one of: webhook',
});
export type WorkflowNode = z.infer<typeof nodeSchema>;

export const nodesSchema = z
  .array(nodeSchema, { error: 'nodes must be a list' })
  .min(1, { message: 'nodes must have at least one node' })
  .max(MAX_NODES, { message: `nodes must have at most ${MAX_NODES} nodes` });

const scalar = z.union([z.string().max(1000), z.number(), z.boolean(), z.null()]);

export const conditionSchema = z
  .object({
    field: z
      .string({ error: 'field is required' })
      .min(1, { message: 'field is required' })
      .max(200)
      .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, {
        message: 'field must be a field name or a dot path (e.g. status, data.email)',
      }),
    op: z.enum(CONDITION_OPS, { message: `op must be one of: ${CONDITION_OPS.join(', ')}` }),
    value: scalar.optional(),
  })
  .refine((c) => c.op === 'exists' || c.value !== undefined, {
    message: 'value is required unless op is exists',
  });
export type Condition = z.infer<typeof conditionSchema>;

/**
 * The event types the platform emits that a trigger's event (a type, or a pattern such as
 * `lead.*`) matches, in the platform's order: what a workflow can be triggered by. The console
 * narrows the recent events a test run may pick to these.
 */
export function eventTypesMatching(trigger: string): string[] {
  return PLATFORM_EVENT_TYPES.filter((type) => typeMatches(trigger, type));
}

/** An event type the platform emits, or a pattern (`lead.*`, `email.>`) that matches one. */
export const triggerEventSchema = z
  .string({ error: 'trigger.event is required' })
  .max(200)
  .refine(
    (value) => eventTypesMatching(value).length > 0,
    `trigger.event must be an event type the platform emits (${PLATFORM_EVENT_TYPES.join(', ')}) or a pattern such as lead.*`,
  );

export const triggerSchema = z.object(
  {
    event: triggerEventSchema,
    conditions: z
      .array(conditionSchema)
      .max(MAX_CONDITIONS, { message: `at most ${MAX_CONDITIONS} conditions` })
      .default([]),
  },
  { error: 'trigger must be an object' },
);
export type Trigger = z.infer<typeof triggerSchema>;

const name = z
  .string({ error: 'name is required' })
  .trim()
  .min(1, { message: 'name is required' })
  .max(200, { message: 'name must be at most 200 characters' });

export const createWorkflowSchema = z.object({
  name,
  enabled: z.boolean({ error: 'enabled must be true or false' }).default(true),
  trigger: triggerSchema,
  nodes: nodesSchema,
});
export type WorkflowInput = z.infer<typeof createWorkflowSchema>;

export const updateWorkflowSchema = z
  .object({
    name,
    enabled: z.boolean({ error: 'enabled must be true or false' }),
    trigger: triggerSchema,
    nodes: nodesSchema,
  })
  .partial()
  .refine((v) => Object.keys(v).length > 0, { message: 'give at least one field to change' });
export type WorkflowChange = z.infer<typeof updateWorkflowSchema>;

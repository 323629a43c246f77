import type { FieldErrors, Resolver } from 'react-hook-form';
import {
  createWorkflowSchema,
  type WorkflowInput,
} from '../../../../../libs/shared/src/automation/workflow-rules';
import type { Workflow } from '../../api/workflows';

/*
 * The workflow builder's values (what the form edits: headers and conditions as rows of text)
 * and the way to the API's definition. The rules are the API's own: the values are turned into
 * a definition and checked with the automation service's createWorkflowSchema (shared from
 * libs/shared automation/workflow-rules.ts), and each issue is put back on the row it is about.
 */
export interface ConditionRow {
  field: string;
  op: 'equals' | 'not_equals' | 'contains' | 'exists';
  value: string;
}
export interface HeaderRow {
  name: string;
  value: string;
}
export interface NodeRow {
  name: string;
  url: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  headers: HeaderRow[];
}
export interface BuilderValues {
  name: string;
  enabled: boolean;
  event: string;
  conditions: ConditionRow[];
  nodes: NodeRow[];
}

export const NEW_CONDITION: ConditionRow = { field: '', op: 'equals', value: '' };
export const NEW_HEADER: HeaderRow = { name: '', value: '' };
export const NEW_NODE: NodeRow = { name: '', url: 'https://', method: 'POST', headers: [] };

export function toBuilderValues(workflow?: Workflow): BuilderValues {
  if (!workflow) {
    return { name: '', enabled: true, event: 'lead.created', conditions: [], nodes: [NEW_NODE] };
  }
  return {
    name: workflow.name,
    enabled: workflow.enabled,
    event: workflow.trigger.event,
    conditions: workflow.trigger.conditions.map((c) => ({
      field: c.field,
      op: c.op,
      value: c.value === undefined || c.value === null ? '' : String(c.value),
    })),
    nodes: workflow.nodes.map((node) => ({
      name: node.name ?? '',
      url: node.config.url,
      method: node.config.method,
      headers: Object.entries(node.config.headers ?? {}).map(([name, value]) => ({ name, value })),
    })),
  };
}

/** The definition the API takes (values are sent as text; `exists` takes none). */
export function toDefinition(values: BuilderValues) {
  return {
    name: values.name,
    enabled: values.enabled,
    trigger: {
      event: values.event.trim(),
      conditions: values.conditions.map((c) =>
        c.op === 'exists' ? { field: c.field.trim(), op: c.op } : { ...c, field: c.field.trim() },
      ),
    },
    nodes: values.nodes.map((node) => ({
      type: 'webhook' as const,
      ...(node.name.trim() ? { name: node.name.trim() } : {}),
      config: {
        url: node.url.trim(),
        method: node.method,
        ...(node.headers.length > 0
          ? { headers: Object.fromEntries(node.headers.map((h) => [h.name.trim(), h.value])) }
          : {}),
      },
    })),
  };
}

/** The form path an issue of the definition is about. */
function formPath(path: PropertyKey[], values: BuilderValues): string {
  const [first, second, third, fourth, fifth] = path.map(String);
  if (first === 'trigger' && second === 'event') return 'event';
  if (first === 'trigger' && second === 'conditions') {
    if (third === undefined) return 'conditions.root';
    return `conditions.${third}.${fourth === 'field' || fourth === 'op' ? fourth : 'value'}`;
  }
  if (first === 'nodes' && second !== undefined && third !== undefined) {
    if (third === 'name') return `nodes.${second}.name`;
    if (fourth === 'headers') {
      const rows = values.nodes[Number(second)]?.headers ?? [];
      const row = rows.findIndex((h) => h.name.trim() === fifth);
      return row >= 0 ? `nodes.${second}.headers.${row}.name` : `nodes.${second}.url`;
    }
    return `nodes.${second}.${fourth === 'method' ? 'method' : 'url'}`;
  }
  if (first === 'nodes') return 'nodes.root';
  return first ?? 'name';
}

/** Sets `message` at `path` (dots) in react-hook-form's nested errors. */
function setError(errors: Record<string, unknown>, path: string, message: string) {
  const keys = path.split('.');
  let at = errors;
  for (const key of keys.slice(0, -1)) at = (at[key] ??= {}) as Record<string, unknown>;
  const last = keys[keys.length - 1];
  at[last] ??= { type: 'validate', message };
}

/** react-hook-form's resolver: the API's schema on the definition the values make. */
export const builderResolver: Resolver<BuilderValues> = (values) => {
  const checked = createWorkflowSchema.safeParse(toDefinition(values));
  if (checked.success) return { values, errors: {} };
  const errors: Record<string, unknown> = {};
  for (const issue of checked.error.issues) {
    setError(errors, formPath(issue.path, values), issue.message);
  }
  return { values: {}, errors: errors as FieldErrors<BuilderValues> };
};

export type WorkflowDefinition = WorkflowInput;

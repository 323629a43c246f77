import { createWorkflowSchema } from '../../../libs/shared/src/automation/workflow-rules';
import {
  builderResolver,
  toBuilderValues,
  toDefinition,
  type BuilderValues,
} from '../src/screens/workflows/builder-values';

/*
 * The workflow builder's values become the API's definition and are checked with the API's own
 * schema; each refusal lands on the row it is about (a header's name, a condition's value, a
 * node's URL), and a stored workflow reads back into the same values.
 */
const VALID: BuilderValues = {
  name: 'Leads out',
  enabled: true,
  event: 'lead.*',
  conditions: [
    { field: 'status', op: 'equals', value: 'new' },
    { field: 'email', op: 'exists', value: 'ignored' },
  ],
  nodes: [
    {
      name: '',
      url: 'https://hooks.example.com/crm',
      method: 'POST',
      headers: [{ name: 'X-Team', value: 'sales' }],
    },
  ],
};

/** The nested errors react-hook-form gets, loosely typed for reading. */
interface Errors {
  [key: string]: Errors & { message?: string };
}

const resolve = async (values: BuilderValues) =>
  builderResolver(values, undefined, { fields: {}, shouldUseNativeValidation: false });

describe('the workflow builder', () => {
  it('sends a definition the API schema accepts: exists without a value, headers as an object', async () => {
    const definition = toDefinition(VALID);
    expect(definition).toEqual({
      name: 'Leads out',
      enabled: true,
      trigger: {
        event: 'lead.*',
        conditions: [
          { field: 'status', op: 'equals', value: 'new' },
          { field: 'email', op: 'exists' },
        ],
      },
      nodes: [
        {
          type: 'webhook',
          config: {
            url: 'https://hooks.example.com/crm',
            method: 'POST',
            headers: { 'X-Team': 'sales' },
          },
        },
      ],
    });
    expect(createWorkflowSchema.safeParse(definition).success).toBe(true);
    expect((await resolve(VALID)).errors).toEqual({});
  });

  it("puts the API rule's refusals on their rows", async () => {
    const { errors } = (await resolve({
      ...VALID,
      event: 'nothing.happens',
      conditions: [
        { field: 'status', op: 'equals', value: '' },
        { field: 'a b', op: 'equals', value: 'x' },
      ],
      nodes: [
        { name: '', url: 'ftp://x.example', method: 'POST', headers: [] },
        {
          name: '',
          url: 'https://ok.example',
          method: 'GET',
          headers: [
            { name: 'X-Ok', value: '1' },
            { name: 'Webhook-Signature', value: 'forged' },
          ],
        },
      ],
    })) as unknown as { errors: Errors };
    expect(errors.event.message).toMatch(/^trigger.event must be an event type the platform emits/);
    expect(errors.conditions[1].field.message).toBe(
      'field must be a field name or a dot path (e.g. status, data.email)',
    );
    expect(errors.nodes[0].url.message).toBe('url must use http or https');
    expect(errors.nodes[1].headers[1].name.message).toBe(
      'header Webhook-Signature is reserved and cannot be set',
    );
    expect(errors.nodes[1].headers[0]).toBeUndefined();
  });

  it('reads a stored workflow back into the same values', () => {
    const definition = toDefinition(VALID);
    const stored = {
      id: 'w',
      created_at: '',
      updated_at: '',
      ...definition,
    };
    expect(toDefinition(toBuilderValues(stored))).toEqual(definition);
  });
});

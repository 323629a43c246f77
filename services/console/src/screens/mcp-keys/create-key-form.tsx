import { zodResolver } from '@hookform/resolvers/zod';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import {
  MCP_SCOPE_DESCRIPTIONS,
  MCP_SCOPES,
} from '../../../../../libs/shared/src/mcp-access/scopes';
import { createMcpKey, MCP_KEYS_KEY } from '../../api/mcp-keys';
import { describeError } from '../../ui/describe-error';
import { Field, SelectField } from '../../ui/field';

/** Expiry choices, in days (0: never); the API takes an ISO date-time in the future. */
const EXPIRIES = [
  ['30', '30 days'],
  ['90', '90 days'],
  ['365', '1 year'],
  ['0', 'Never'],
] as const;

const schema = z.object({
  name: z.string().trim().min(1, { message: 'Give the key a name' }).max(100),
  scopes: z.array(z.string()).min(1, { message: 'Choose at least one scope' }),
  expiresInDays: z.enum(['30', '90', '365', '0']),
});
type NewKey = z.infer<typeof schema>;

function expiresAt(days: string): string | null {
  const n = Number(days);
  return n === 0 ? null : new Date(Date.now() + n * 86_400_000).toISOString();
}

/**
 * Create a key: a name, its scopes (one checkbox each: every scope mcp-ingest knows, from the
 * list it checks keys against, with the words the consent page uses) and an expiry.
 */
export function CreateKeyForm({
  onCreated,
}: {
  onCreated: (apiKey: string, name: string) => void;
}) {
  const id = useId();
  const queryClient = useQueryClient();
  const form = useForm<NewKey>({
    resolver: zodResolver(schema),
    defaultValues: { name: '', scopes: [MCP_SCOPES[0]], expiresInDays: '90' },
  });
  const create = useMutation({
    mutationFn: (values: NewKey) =>
      createMcpKey({
        name: values.name,
        scopes: values.scopes,
        expires_at: expiresAt(values.expiresInDays),
      }),
    onSuccess: (body) => {
      form.reset();
      onCreated(body.data.api_key, body.data.key.name);
      return queryClient.invalidateQueries({ queryKey: MCP_KEYS_KEY });
    },
  });
  const errors = form.formState.errors;
  return (
    <section aria-labelledby={`${id}-title`} className="panel-section">
      <h2 id={`${id}-title`}>Create a key</h2>
      <form
        className="record-form export-form"
        noValidate
        onSubmit={form.handleSubmit((values) => create.mutate(values))}
      >
        <Field label="Name" error={errors.name?.message} registration={form.register('name')} />
        <fieldset aria-describedby={errors.scopes ? `${id}-scopes-error` : undefined}>
          <legend>Scopes</legend>
          {MCP_SCOPES.map((scope) => (
            <label key={scope} className="choice">
              <input type="checkbox" value={scope} {...form.register('scopes')} />
              {scope}
              <span className="muted">({MCP_SCOPE_DESCRIPTIONS[scope]})</span>
            </label>
          ))}
          {errors.scopes && (
            <p id={`${id}-scopes-error`} className="field-error">
              {errors.scopes.message}
            </p>
          )}
        </fieldset>
        <SelectField
          label="Expires in"
          options={EXPIRIES}
          registration={form.register('expiresInDays')}
        />
        <div>
          <button type="submit" disabled={create.isPending}>
            Create key
          </button>
        </div>
      </form>
      {create.isError && (
        <p role="alert" className="problem-inline">
          {describeError(create.error)}
        </p>
      )}
    </section>
  );
}

import { zodResolver } from '@hookform/resolvers/zod';
import { useId } from 'react';
import { useForm } from 'react-hook-form';
import * as z from 'zod/mini';
import {
  DEAL_VALUE_PATTERN,
  MAX_DEAL_TITLE,
} from '../../../../../libs/records/src/deals/deal-rules';
import { DEAL_STAGES } from '../../api/deals';
import { describeError } from '../../ui/describe-error';
import { Field } from '../../ui/field';
import { stageLabel } from './stages';
import { useCreateDeal } from './use-deals';

/** The API's rules for a new deal (libs/records deal-rules.ts), checked before sending. */
const schema = z.object({
  title: z
    .string()
    .check(
      z.trim(),
      z.minLength(1, 'Give the deal a title'),
      z.maxLength(MAX_DEAL_TITLE, `At most ${MAX_DEAL_TITLE} characters`),
    ),
  value: z
    .string()
    .check(
      z.trim(),
      z.regex(DEAL_VALUE_PATTERN, 'An amount of at least 0, with up to 2 decimal places'),
    ),
  stage: z.enum(DEAL_STAGES),
});

/** A new deal: title, value (in USD, the API's default currency) and stage. */
export function DealForm() {
  const id = useId();
  const create = useCreateDeal();
  const form = useForm({
    resolver: zodResolver(schema),
    defaultValues: { title: '', value: '0', stage: 'lead' as const },
  });
  const { errors } = form.formState;
  return (
    <form
      className="deal-form"
      aria-label="New deal"
      noValidate
      onSubmit={form.handleSubmit((values) =>
        create.mutate(values, { onSuccess: () => form.reset() }),
      )}
    >
      <Field label="Title" error={errors.title?.message} registration={form.register('title')} />
      <Field
        label="Value (USD)"
        error={errors.value?.message}
        registration={form.register('value')}
      />
      <div className="field">
        <label htmlFor={`${id}-stage`}>Stage</label>
        <select id={`${id}-stage`} {...form.register('stage')}>
          {DEAL_STAGES.map((stage) => (
            <option key={stage} value={stage}>
              {stageLabel(stage)}
            </option>
          ))}
        </select>
      </div>
      <button type="submit" disabled={create.isPending}>
        Add deal
      </button>
      {create.isError && (
        <p role="alert" className="problem">
          {describeError(create.error)}
        </p>
      )}
    </form>
  );
}

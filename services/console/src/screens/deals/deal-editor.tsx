import { zodResolver } from '@hookform/resolvers/zod';
import { useEffect, useRef, useState } from 'react';
import { useForm } from 'react-hook-form';
import { Link, useParams } from 'react-router';
import * as z from 'zod/mini';
import {
  DEAL_CURRENCY_PATTERN,
  DEAL_VALUE_PATTERN,
  MAX_DEAL_TITLE,
} from '../../../../../libs/records/src/deals/deal-rules';
import { DEAL_STAGES, type Deal, type DealChange } from '../../api/deals';
import { useRole } from '../../session/use-role';
import { Field, SelectField } from '../../ui/field';
import { serverFieldError } from '../../ui/server-field-error';
import { QueryStates } from '../../ui/states';
import { money, stageLabel } from './stages';
import { useDeal, useOwners, useUpdateDeal } from './use-deals';
import { dateTime } from '../../ui/date-time';

/** The API's rules for a deal's fields (libs/records deal-rules.ts), checked before sending. */
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
  currency: z
    .string()
    .check(
      z.trim(),
      z.regex(DEAL_CURRENCY_PATTERN, 'A currency code of 3 letters, such as USD'),
      z.toUpperCase(),
    ),
  stage: z.enum(DEAL_STAGES),
  assigned_to: z.string(),
  expected_close_date: z.string(),
});
type Values = z.infer<typeof schema>;
const FIELD_NAMES = [
  'title',
  'value',
  'currency',
  'stage',
  'assigned_to',
  'expected_close_date',
] as const;
const STAGE_OPTIONS = DEAL_STAGES.map((stage) => [stage, stageLabel(stage)] as const);

/**
 * One deal beside the deals list (GET /api/crm/deals/:id): a form of the fields PATCH takes
 * for anyone but a viewer, who reads them instead.
 */
export function DealEditor() {
  const { dealId = '' } = useParams();
  const { canWrite } = useRole();
  const deal = useDeal(dealId);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [dealId, deal.isSuccess]);
  return (
    <aside className="detail" aria-labelledby="deal-title">
      <h2 id="deal-title" ref={heading} tabIndex={-1}>
        {deal.data?.title ?? 'Deal'}
      </h2>
      <QueryStates query={deal} what="the deal">
        {(data) => (canWrite ? <DealForm key={data.id} deal={data} /> : <DealFields deal={data} />)}
      </QueryStates>
      {deal.data?.lead_id && (
        <p>
          <Link to={`/leads/${deal.data.lead_id}`}>Its lead</Link>
        </p>
      )}
      <Link to="/deals/list">Close</Link>
    </aside>
  );
}

function DealForm({ deal }: { deal: Deal }) {
  const update = useUpdateDeal();
  const { owners } = useOwners();
  const [saved, setSaved] = useState(false);
  const form = useForm<Values>({
    resolver: zodResolver(schema),
    defaultValues: valuesOf(deal),
  });
  const { errors, dirtyFields, isSubmitting } = form.formState;
  // The owner may be someone this role cannot list: keep them as an option.
  const ownerOptions: Array<readonly [string, string]> = [['', 'Nobody'], ...owners];
  if (deal.assigned_to && !owners.some(([id]) => id === deal.assigned_to)) {
    ownerOptions.push([deal.assigned_to, `Member ${deal.assigned_to.slice(0, 8)}`]);
  }
  const submit = form.handleSubmit(async (values) => {
    setSaved(false);
    const change: DealChange = {};
    if (dirtyFields.title) change.title = values.title;
    if (dirtyFields.value) change.value = values.value;
    if (dirtyFields.currency) change.currency = values.currency;
    if (dirtyFields.stage) change.stage = values.stage;
    if (dirtyFields.assigned_to) change.assigned_to = values.assigned_to || null;
    if (dirtyFields.expected_close_date)
      change.expected_close_date = values.expected_close_date || null;
    if (Object.keys(change).length === 0) return;
    try {
      // What was saved is the form's new starting point: the next save sends what changes next.
      form.reset(valuesOf(await update.mutateAsync({ id: deal.id, change })));
      setSaved(true);
    } catch (error) {
      const { field, message } = serverFieldError(error, FIELD_NAMES);
      form.setError(field ?? 'root.server', { type: 'server', message }, { shouldFocus: true });
    }
  });
  return (
    <form aria-label="Edit deal" className="record-form" noValidate onSubmit={submit}>
      <Field label="Title" error={errors.title?.message} registration={form.register('title')} />
      <Field label="Value" error={errors.value?.message} registration={form.register('value')} />
      <Field
        label="Currency"
        error={errors.currency?.message}
        registration={form.register('currency')}
      />
      <SelectField
        label="Stage"
        options={STAGE_OPTIONS}
        error={errors.stage?.message}
        registration={form.register('stage')}
      />
      <SelectField
        label="Owner"
        options={ownerOptions}
        error={errors.assigned_to?.message}
        registration={form.register('assigned_to')}
      />
      <Field
        label="Expected close"
        type="date"
        error={errors.expected_close_date?.message}
        registration={form.register('expected_close_date')}
      />
      {errors.root?.server && (
        <p role="alert" className="problem">
          {errors.root.server.message}
        </p>
      )}
      <div className="actions">
        <button type="submit" disabled={isSubmitting}>
          Save deal
        </button>
      </div>
      <p role="status" className="muted">
        {saved ? 'Saved.' : ''}
      </p>
    </form>
  );
}

function valuesOf(deal: Deal): Values {
  return {
    title: deal.title,
    value: deal.value,
    currency: deal.currency,
    stage: deal.stage,
    assigned_to: deal.assigned_to ?? '',
    expected_close_date: deal.expected_close_date ?? '',
  };
}

function DealFields({ deal }: { deal: Deal }) {
  const { name } = useOwners();
  const rows: Array<[string, string]> = [
    ['Title', deal.title],
    ['Value', money(deal.value, deal.currency)],
    ['Stage', stageLabel(deal.stage)],
    ['Owner', deal.assigned_to ? name(deal.assigned_to) : '—'],
    ['Expected close', deal.expected_close_date ?? '—'],
    ['Created', dateTime(deal.created_at)],
    ['Updated', dateTime(deal.updated_at)],
  ];
  return (
    <dl>
      {rows.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

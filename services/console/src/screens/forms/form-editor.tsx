import { zodResolver } from '@hookform/resolvers/zod';
import { useEffect, useId, useRef } from 'react';
import { useFieldArray, useForm as useHookForm, type FieldErrors } from 'react-hook-form';
import { Link, useNavigate, useParams } from 'react-router';
import { FIELD_TYPES } from '../../../../../libs/records/src/forms/form-rules';
import type { WebForm } from '../../api/forms';
import { useRole } from '../../session/use-role';
import { describeError } from '../../ui/describe-error';
import { Field } from '../../ui/field';
import { Problem } from '../../ui/problem';
import { Loading } from '../../ui/states';
import {
  formEditorSchema,
  NEW_FIELD,
  toDefinition,
  toEditorValues,
  type FieldValues,
  type FormEditorValues,
} from './form-schema';
import { useForm, useSaveForm } from './use-forms';

/** /forms/new and /forms/:formId/edit: a form's name, slug (new only), state and fields. */
export function FormEditorScreen() {
  const { formId } = useParams();
  const { role, canManageForms } = useRole();
  const form = useForm(formId ?? '');
  const heading = formId ? 'Edit form' : 'New form';
  let body: React.ReactNode;
  if (role !== undefined && !canManageForms) {
    body = (
      <p role="alert" className="problem">
        Only an owner or admin of the tenant can create or change forms (your role: {role}).
      </p>
    );
  } else if (!formId) {
    body = <FormEditor />;
  } else if (form.isPending) {
    body = <Loading what="the form" />;
  } else if (form.isError) {
    body = <Problem error={form.error} onRetry={() => void form.refetch()} />;
  } else {
    body = <FormEditor form={form.data} />;
  }
  return (
    <section aria-labelledby="screen-title">
      <p>
        <Link to={formId ? `/forms/${formId}` : '/forms'}>
          {formId ? 'Back to the form' : 'Back to forms'}
        </Link>
      </p>
      <h1 id="screen-title">{heading}</h1>
      {body}
    </section>
  );
}

function FormEditor({ form }: { form?: WebForm }) {
  const id = useId();
  const navigate = useNavigate();
  const save = useSaveForm(form?.id);
  const editor = useHookForm<FormEditorValues>({
    resolver: zodResolver(formEditorSchema),
    defaultValues: form
      ? toEditorValues(form)
      : {
          name: '',
          slug: '',
          enabled: true,
          fields: [{ ...NEW_FIELD, name: 'email', label: 'Email', type: 'email', required: true }],
        },
  });
  const fields = useFieldArray({ control: editor.control, name: 'fields' });
  const { errors } = editor.formState;
  const problem = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (save.isError) problem.current?.focus();
  }, [save.isError]);

  const onSubmit = editor.handleSubmit((values) =>
    save.mutate(toDefinition(values), {
      onSuccess: (answer) => void navigate(`/forms/${answer.data.form.id}`),
    }),
  );
  return (
    <form
      className="form-editor"
      aria-label={form ? `Edit ${form.name}` : 'New form'}
      noValidate
      onSubmit={onSubmit}
    >
      <Field label="Name" error={errors.name?.message} registration={editor.register('name')} />
      {form ? (
        <p>
          <span className="label">Slug</span> <code>{form.slug}</code>{' '}
          <span className="muted">(part of the public URL: it does not change)</span>
        </p>
      ) : (
        <Field
          label="Slug"
          hint="Part of the public URL: lower-case letters, digits and dashes, e.g. contact-us. It cannot change later."
          error={errors.slug?.message}
          registration={editor.register('slug')}
        />
      )}
      <div className="checkbox-field">
        <input id={`${id}-enabled`} type="checkbox" {...editor.register('enabled')} />
        <label htmlFor={`${id}-enabled`}>Enabled (accepts submissions)</label>
      </div>
      <h2>Fields</h2>
      <p className="muted">
        Every submission needs an email: a form without an <code>email</code> field gets one in its
        embed snippet.
      </p>
      {errors.fields?.message && (
        <p role="alert" className="field-error">
          {errors.fields.message}
        </p>
      )}
      {fields.fields.map((item, index) => (
        <FieldRow
          key={item.id}
          index={index}
          editor={editor}
          errors={errors.fields?.[index]}
          onRemove={() => fields.remove(index)}
        />
      ))}
      <p>
        <button type="button" onClick={() => fields.append({ ...NEW_FIELD })}>
          Add field
        </button>
      </p>
      <button type="submit" disabled={save.isPending}>
        {form ? 'Save changes' : 'Create form'}
      </button>
      {save.isError && (
        <p role="alert" className="problem" ref={problem} tabIndex={-1}>
          {describeError(save.error)}
        </p>
      )}
    </form>
  );
}

/** One field of the form: name, label, type, required, options (for a select). */
function FieldRow({
  index,
  editor,
  errors,
  onRemove,
}: {
  index: number;
  editor: ReturnType<typeof useHookForm<FormEditorValues>>;
  errors: FieldErrors<FieldValues> | undefined;
  onRemove: () => void;
}) {
  const id = useId();
  const n = index + 1;
  const type = editor.watch(`fields.${index}.type`);
  return (
    <fieldset className="field-row">
      <legend>Field {n}</legend>
      <Field
        label={`Field ${n} name`}
        error={errors?.name?.message}
        registration={editor.register(`fields.${index}.name`)}
      />
      <Field
        label={`Field ${n} label`}
        error={errors?.label?.message}
        registration={editor.register(`fields.${index}.label`)}
      />
      <div className="field">
        <label htmlFor={`${id}-type`}>{`Field ${n} type`}</label>
        <select id={`${id}-type`} {...editor.register(`fields.${index}.type`)}>
          {FIELD_TYPES.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </div>
      {type === 'select' && (
        <Field
          label={`Field ${n} options`}
          hint="Comma-separated, e.g. sales, support"
          error={errors?.options?.message}
          registration={editor.register(`fields.${index}.options`)}
        />
      )}
      <div className="checkbox-field">
        <input
          id={`${id}-required`}
          type="checkbox"
          {...editor.register(`fields.${index}.required`)}
        />
        <label htmlFor={`${id}-required`}>{`Field ${n} required`}</label>
      </div>
      <button type="button" onClick={onRemove}>
        Remove field {n}
      </button>
    </fieldset>
  );
}

import { useCallback, useEffect, useId, useMemo, useRef } from 'react';
import { Link, useParams } from 'react-router';
import { publicSubmitUrl, type WebForm } from '../../api/forms';
import { useMe } from '../../session/use-me';
import { canManage } from '../../session/use-role';
import { CopyField } from '../../ui/copy-field';
import { DataTable } from '../../ui/data-table';
import { QueryStates } from '../../ui/states';
import { embedSnippet } from './embed-snippet';
import { submissionColumns } from './form-columns';
import { useForm, useSubmissions } from './use-forms';

/** /forms/:formId: the form, its public URL and embed snippet to copy, its submissions. */
export function FormPage() {
  const { formId = '' } = useParams();
  const me = useMe();
  const form = useForm(formId);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [formId]);
  const tenant = me.data?.selectedTenant;
  return (
    <section aria-labelledby="screen-title" className="form-page">
      <p>
        <Link to="/forms">Back to forms</Link>
      </p>
      <h1 id="screen-title" ref={heading} tabIndex={-1}>
        {form.data?.name ?? 'Form'}
      </h1>
      <QueryStates query={form} what="the form">
        {(data) => (
          <>
            <dl className="facts">
              <div>
                <dt>Slug</dt>
                <dd>
                  <code>{data.slug}</code>
                </dd>
              </div>
              <div>
                <dt>State</dt>
                <dd>{data.enabled ? 'Enabled' : 'Disabled (its URL answers 404)'}</dd>
              </div>
              <div>
                <dt>Fields</dt>
                <dd>
                  {data.fields.length === 0
                    ? 'None besides email'
                    : data.fields
                        .map(
                          (f) =>
                            `${f.label ?? f.name} (${f.type}${f.required ? ', required' : ''})`,
                        )
                        .join(', ')}
                </dd>
              </div>
            </dl>
            {canManage(tenant?.role) && (
              <p>
                <Link to={`/forms/${data.id}/edit`} className="button-link">
                  Edit form
                </Link>
              </p>
            )}
            {tenant && <Embedding form={data} tenantSlug={tenant.slug} />}
            <Submissions form={data} />
          </>
        )}
      </QueryStates>
    </section>
  );
}

/** The public URL and a copy-ready HTML form posting to it. */
function Embedding({ form, tenantSlug }: { form: WebForm; tenantSlug: string }) {
  const id = useId();
  const url = publicSubmitUrl(window.location.origin, tenantSlug, form.slug);
  const snippet = embedSnippet(url, form.slug, form.fields);
  return (
    <section aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Put it on a website</h2>
      <CopyField label="Public submit URL" copy="Copy URL" value={url} />
      <CopyField label="HTML embed snippet" copy="Copy snippet" value={snippet} multiline />
    </section>
  );
}

function Submissions({ form }: { form: WebForm }) {
  const id = useId();
  const submissions = useSubmissions(form.id);
  const columns = useMemo(() => submissionColumns(form.fields), [form.fields]);
  const pages = submissions.data?.pages;
  const rows = useMemo(() => pages?.flatMap((page) => page.items) ?? [], [pages]);
  const total = pages?.[0]?.total ?? 0;
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = submissions;
  const loadMore = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);
  return (
    <section aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Submissions</h2>
      <p>
        <button
          type="button"
          onClick={() => void submissions.refetch()}
          disabled={submissions.isFetching}
        >
          Refresh submissions
        </button>
      </p>
      <div aria-busy={submissions.isFetching}>
        <QueryStates
          query={submissions}
          what="submissions"
          isEmpty={() => rows.length === 0}
          empty={
            <p>No submissions yet. They appear here once the form is posted from a website.</p>
          }
        >
          {() => (
            <>
              <p role="status" className="muted">
                {rows.length} of {total} submissions shown, newest first
                {isFetchingNextPage ? ', loading more…' : ''}
              </p>
              <DataTable
                label="Submissions list"
                rows={rows}
                columns={columns}
                total={total}
                sorting={[]}
                onSortingChange={() => undefined}
                hasMore={Boolean(hasNextPage)}
                loadMore={loadMore}
              />
            </>
          )}
        </QueryStates>
      </div>
    </section>
  );
}

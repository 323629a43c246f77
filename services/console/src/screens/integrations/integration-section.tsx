import { useId, useState } from 'react';
import type { IntegrationRow } from '../../api/integrations';
import { ConfirmDialog } from '../../ui/confirm-dialog';
import { CopyButton } from '../../ui/copy-field';
import { describeError } from '../../ui/describe-error';
import { QueryStates } from '../../ui/states';
import { IntegrationForm } from './integration-form';
import type { IntegrationKind } from './integration-kinds';
import { useIntegrationRows, useIntegrationWrites } from './use-integrations';

const STATUS_TEXT = {
  proven: 'Proven',
  pending: 'Pending proof',
  unverified: 'Unverified (no secret)',
} as const;

/** The values of a form as the API takes them: trimmed, empty optional ones left out. */
function bodyOf(values: Record<string, string>, kind: IntegrationKind) {
  const body: Record<string, unknown> = {};
  for (const field of kind.create) {
    const value = field.secret ? values[field.name] : values[field.name]?.trim();
    if (value) body[field.name] = value;
  }
  return body;
}

/**
 * One kind of integration: its rows (identifier, name, secret set or not, proof status and
 * the URL to register), and for owners and admins the forms to connect, change and remove.
 */
export function IntegrationSection({ kind, manage }: { kind: IntegrationKind; manage: boolean }) {
  const id = useId();
  const rows = useIntegrationRows(kind.path);
  const writes = useIntegrationWrites(kind.path);
  const [adding, setAdding] = useState(false);
  const [changing, setChanging] = useState<IntegrationRow | null>(null);
  const [removeSecret, setRemoveSecret] = useState(false);
  const [removing, setRemoving] = useState<IntegrationRow | null>(null);
  const [said, setSaid] = useState('');
  const label = (row: IntegrationRow) => String(row[kind.identifier.column] ?? row.id);
  const hasSecrets = kind.change?.some((field) => field.secret) ?? false;
  const items = rows.data?.items ?? [];

  return (
    <section aria-labelledby={`${id}-title`} className="panel-section">
      <h2 id={`${id}-title`}>{kind.title}</h2>
      <p role="status" className="muted">
        {said}
      </p>
      <QueryStates
        query={rows}
        what={`the ${kind.noun}s`}
        isEmpty={() => items.length === 0}
        empty={
          <p>
            No {kind.noun}s yet.{' '}
            {manage
              ? `Connect one with “Connect a ${kind.noun}”.`
              : 'An owner or admin of the tenant can connect one.'}
          </p>
        }
      >
        {() => (
          <div
            className="integration-table"
            role="region"
            aria-label={`${kind.title} list`}
            tabIndex={0}
          >
            <table>
              <thead>
                <tr>
                  <th scope="col">{kind.identifier.label}</th>
                  {kind.extra && <th scope="col">{kind.extra.label}</th>}
                  <th scope="col">Name</th>
                  {hasSecrets && <th scope="col">Webhook secret</th>}
                  {kind.proof !== 'none' && <th scope="col">Status</th>}
                  <th scope="col">
                    {kind.proof === 'verification-url' ? 'Verification URL' : 'Receiver URL'}
                  </th>
                  {manage && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {items.map((row) => {
                  const url =
                    kind.proof === 'verification-url' ? row.verificationUrl : row.webhookUrl;
                  return (
                    <tr key={row.id}>
                      <td>{label(row)}</td>
                      {kind.extra && <td>{String(row[kind.extra.column] ?? '—')}</td>}
                      <td>{row.name ?? '—'}</td>
                      {hasSecrets && <td>{row.hasWebhookSecret ? 'Set' : 'Not set'}</td>}
                      {kind.proof !== 'none' && (
                        <td>{row.status ? STATUS_TEXT[row.status] : '—'}</td>
                      )}
                      <td>
                        {url ? (
                          <>
                            <code className="url">{url}</code>{' '}
                            <CopyButton value={url} label={`Copy the URL of ${label(row)}`} />
                          </>
                        ) : (
                          '—'
                        )}
                      </td>
                      {manage && (
                        <td className="row-actions">
                          {kind.change && (
                            <button
                              type="button"
                              aria-label={`Change ${label(row)}`}
                              onClick={() => {
                                writes.change.reset();
                                setRemoveSecret(false);
                                setChanging(row);
                              }}
                            >
                              Change
                            </button>
                          )}{' '}
                          <button
                            type="button"
                            className="danger"
                            aria-label={`Remove ${label(row)}`}
                            onClick={() => setRemoving(row)}
                          >
                            Remove
                          </button>
                        </td>
                      )}
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </QueryStates>
      {manage && !adding && !changing && (
        <p>
          <button
            type="button"
            onClick={() => {
              writes.create.reset();
              setAdding(true);
            }}
          >
            Connect a {kind.noun}
          </button>
        </p>
      )}
      {manage && adding && (
        <IntegrationForm
          title={`Connect a ${kind.noun}`}
          fields={kind.create}
          submitLabel="Connect"
          busy={writes.create.isPending}
          error={writes.create.error}
          onCancel={() => setAdding(false)}
          onSubmit={(values) =>
            writes.create.mutate(bodyOf(values, kind), {
              onSuccess: (answer) => {
                setAdding(false);
                setSaid(answer.message || `The ${kind.noun} is connected.`);
              },
            })
          }
        />
      )}
      {manage && changing && kind.change && (
        <IntegrationForm
          title={`Change ${label(changing)}`}
          fields={kind.change}
          initial={{ name: changing.name ?? '' }}
          submitLabel="Save changes"
          busy={writes.change.isPending}
          error={writes.change.error}
          onCancel={() => setChanging(null)}
          extra={
            kind.secretRemovable && changing.hasWebhookSecret ? (
              <div className="checkbox-field">
                <input
                  id={`${id}-remove-secret`}
                  type="checkbox"
                  checked={removeSecret}
                  onChange={(event) => setRemoveSecret(event.target.checked)}
                />
                <label htmlFor={`${id}-remove-secret`}>Remove the webhook secret</label>
              </div>
            ) : undefined
          }
          onSubmit={(values) => {
            const body: Record<string, unknown> = {};
            const name = values.name?.trim() ?? '';
            if (name !== (changing.name ?? '')) body.name = name === '' ? null : name;
            if (removeSecret) body.webhookSecret = null;
            else if (values.webhookSecret) body.webhookSecret = values.webhookSecret;
            writes.change.mutate(
              { id: changing.id, body },
              {
                onSuccess: (answer) => {
                  setChanging(null);
                  setSaid(answer.message || `${label(changing)} is changed.`);
                },
              },
            );
          }}
        />
      )}
      <ConfirmDialog
        open={removing !== null}
        title={`Remove ${removing ? label(removing) : ''}?`}
        confirmLabel="Remove"
        busy={writes.remove.isPending}
        onCancel={() => setRemoving(null)}
        onConfirm={() =>
          removing &&
          writes.remove.mutate(removing.id, {
            onSuccess: () => {
              setSaid(`${label(removing)} is removed.`);
              setRemoving(null);
            },
            onError: (error) => {
              setSaid(describeError(error));
              setRemoving(null);
            },
          })
        }
      >
        <p>
          Its deliveries will no longer reach this workspace
          {kind.path === 'storefront-connections'
            ? ', and the orders it stored are deleted with it.'
            : kind.path === 'payment-connections'
              ? ', and the payment events it stored are deleted with it.'
              : kind.path === 'network-accounts'
                ? ', and the network events it stored are deleted with it.'
                : '; what it stored is kept.'}
        </p>
      </ConfirmDialog>
    </section>
  );
}

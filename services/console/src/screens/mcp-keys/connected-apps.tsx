import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import {
  fetchMcpConnections,
  MCP_CONNECTIONS_KEY,
  revokeMcpConnection,
  type McpConnection,
} from '../../api/mcp-connections';
import { ConfirmDialog } from '../../ui/confirm-dialog';
import { describeError } from '../../ui/describe-error';
import { QueryStates } from '../../ui/states';

const when = (at: string | null, none: string) => (at ? new Date(at).toLocaleString() : none);
const appName = (connection: McpConnection) => connection.client_name || connection.client_id;

/**
 * The apps connected to the tenant with OAuth (GET /api/mcp/connections), beside the keys: each
 * with the host its answers go back to, its scopes, who approved it and when it was last used.
 * Revoking one (after a confirmation) refuses its tokens from the next request. Only owners and
 * admins may list them, so anyone else is told so instead of being shown the API's 403.
 */
export function ConnectedApps({
  personOf,
  canManage,
}: {
  /** Who a user id is, as the keys' "Created by" says it. */
  personOf: (userId: string | null) => string;
  canManage: boolean;
}) {
  const id = useId();
  return (
    <section aria-labelledby={`${id}-title`} className="panel-section">
      <h2 id={`${id}-title`}>Connected apps</h2>
      {canManage ? (
        <ConnectionsTable personOf={personOf} />
      ) : (
        <p>Apps connected with OAuth are listed for the tenant&apos;s owners and admins.</p>
      )}
    </section>
  );
}

function ConnectionsTable({ personOf }: { personOf: (userId: string | null) => string }) {
  const connections = useQuery({
    queryKey: MCP_CONNECTIONS_KEY,
    queryFn: ({ signal }) => fetchMcpConnections(signal),
    select: (body) => body.data,
  });
  return (
    <QueryStates
      query={connections}
      what="connected apps"
      isEmpty={(data) => data.items.length === 0}
      empty={<p>No app is connected yet. Apps that sign in with OAuth appear here.</p>}
    >
      {(data) => (
        <table className="plain-table">
          <caption>
            Connected apps ({data.total}
            {data.total > data.items.length && `, the ${data.items.length} newest shown`})
          </caption>
          <thead>
            <tr>
              <th scope="col">App</th>
              <th scope="col">Redirect host</th>
              <th scope="col">Scopes</th>
              <th scope="col">Approved</th>
              <th scope="col">Last used</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {data.items.map((connection) => (
              <ConnectionRow
                key={connection.id}
                connection={connection}
                approvedBy={personOf(connection.user_id)}
              />
            ))}
          </tbody>
        </table>
      )}
    </QueryStates>
  );
}

function ConnectionRow({
  connection,
  approvedBy,
}: {
  connection: McpConnection;
  approvedBy: string;
}) {
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const revoke = useMutation({
    mutationFn: () => revokeMcpConnection(connection.id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: MCP_CONNECTIONS_KEY }),
  });
  const name = appName(connection);
  return (
    <tr>
      <td>{name}</td>
      <td>{connection.redirect_host}</td>
      <td>{connection.scopes.join(', ')}</td>
      <td>
        {approvedBy}, {when(connection.created_at, '')}
      </td>
      <td>{when(connection.last_used_at, 'Never')}</td>
      <td>
        {connection.revoked_at ? (
          `Revoked ${when(connection.revoked_at, '')}`
        ) : (
          <>
            Active{' '}
            <button
              type="button"
              className="danger"
              disabled={revoke.isPending}
              onClick={() => setConfirming(true)}
              aria-label={`Revoke app ${name}`}
            >
              Revoke
            </button>
          </>
        )}
        {revoke.isError && (
          <p role="alert" className="problem-inline">
            {describeError(revoke.error)}
          </p>
        )}
        <ConfirmDialog
          open={confirming}
          title={`Revoke “${name}”?`}
          confirmLabel="Revoke app"
          busy={revoke.isPending}
          onCancel={() => setConfirming(false)}
          onConfirm={() => {
            setConfirming(false);
            revoke.mutate();
          }}
        >
          <p>
            {name} is refused from its next request: its access and refresh tokens stop working. To
            use this tenant again it has to ask an owner or admin again.
          </p>
        </ConfirmDialog>
      </td>
    </tr>
  );
}

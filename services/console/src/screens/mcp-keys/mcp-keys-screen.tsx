import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { fetchMcpKeys, MCP_KEYS_KEY, revokeMcpKey, type McpKey } from '../../api/mcp-keys';
import { fetchMembers, MEMBERS_KEY } from '../../api/members';
import { useRole } from '../../session/use-role';
import { ConfirmDialog } from '../../ui/confirm-dialog';
import { describeError } from '../../ui/describe-error';
import { QueryStates } from '../../ui/states';
import { ConnectedApps } from './connected-apps';
import { CreateKeyForm } from './create-key-form';
import { NewKeyPanel } from './new-key-panel';

const when = (at: string | null, none: string) => (at ? new Date(at).toLocaleString() : none);

/**
 * Who a user id is (who created a key, who approved an app): a member's email when the role may
 * list the members.
 */
function useCreators(): (userId: string | null) => string {
  const { canListMembers, userId: self } = useRole();
  const members = useQuery({
    queryKey: MEMBERS_KEY,
    queryFn: ({ signal }) => fetchMembers(signal),
    enabled: canListMembers,
    select: (body) => body.data.members,
  });
  return (userId) => {
    if (!userId) return '—';
    if (userId === self) return 'you';
    return members.data?.find((m) => m.userId === userId)?.email ?? 'another member';
  };
}

/**
 * MCP keys of the tenant (GET /api/mcp/keys: every member may list them); owners and admins
 * create them (the key is shown once, with ready client configurations) and revoke them.
 * Members and viewers see the list only. Beside the keys, the apps connected with OAuth
 * (connected-apps.tsx).
 */
export function McpKeysScreen() {
  const { role, canListMembers: canManage } = useRole();
  const [created, setCreated] = useState<{ apiKey: string; name: string } | null>(null);
  const keys = useQuery({
    queryKey: MCP_KEYS_KEY,
    queryFn: ({ signal }) => fetchMcpKeys(signal),
    select: (body) => body.data,
  });
  const creatorOf = useCreators();
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">MCP keys</h1>
      <p className="muted">
        Keys let AI agents write leads, contacts, products and conversations into this tenant, and
        read its records, over the Model Context Protocol, as far as their scopes allow. Apps that
        sign in with OAuth instead are listed under Connected apps.
        {role && !canManage && ' Creating and revoking keys needs the owner or admin role.'}
      </p>
      {created ? (
        <NewKeyPanel apiKey={created.apiKey} name={created.name} onDone={() => setCreated(null)} />
      ) : (
        canManage && <CreateKeyForm onCreated={(apiKey, name) => setCreated({ apiKey, name })} />
      )}
      <QueryStates
        query={keys}
        what="keys"
        isEmpty={(data) => data.items.length === 0}
        empty={
          <p>
            No keys yet.
            {canManage ? ' Create one above to connect an agent.' : ''}
          </p>
        }
      >
        {(data) => (
          <table className="plain-table">
            <caption>
              Keys ({data.total}
              {data.total > data.items.length && `, the ${data.items.length} newest shown`})
            </caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Prefix</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created by</th>
                <th scope="col">Last used</th>
                <th scope="col">Expires</th>
                <th scope="col">Status</th>
                {canManage && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {data.items.map((key) => (
                <KeyRow
                  key={key.id}
                  mcpKey={key}
                  createdBy={creatorOf(key.created_by)}
                  canManage={canManage}
                />
              ))}
            </tbody>
          </table>
        )}
      </QueryStates>
      <ConnectedApps personOf={creatorOf} canManage={canManage} />
    </section>
  );
}

function statusOf(key: McpKey): string {
  if (key.revoked_at) return `Revoked ${when(key.revoked_at, '')}`;
  if (key.expires_at && Date.parse(key.expires_at) <= Date.now()) return 'Expired';
  return 'Active';
}

function KeyRow({
  mcpKey: key,
  createdBy,
  canManage,
}: {
  mcpKey: McpKey;
  createdBy: string;
  canManage: boolean;
}) {
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const revoke = useMutation({
    mutationFn: () => revokeMcpKey(key.id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: MCP_KEYS_KEY }),
  });
  return (
    <tr>
      <td>{key.name}</td>
      <td>
        <code>{key.prefix}…</code>
      </td>
      <td>{key.scopes.join(', ')}</td>
      <td>
        {createdBy}, {when(key.created_at, '')}
      </td>
      <td>{when(key.last_used_at, 'Never')}</td>
      <td>{when(key.expires_at, 'Never')}</td>
      <td>{statusOf(key)}</td>
      {canManage && (
        <td>
          {!key.revoked_at && (
            <button
              type="button"
              className="danger"
              disabled={revoke.isPending}
              onClick={() => setConfirming(true)}
              aria-label={`Revoke key ${key.name}`}
            >
              Revoke
            </button>
          )}
          {revoke.isError && (
            <p role="alert" className="problem-inline">
              {describeError(revoke.error)}
            </p>
          )}
          <ConfirmDialog
            open={confirming}
            title={`Revoke key “${key.name}”?`}
            confirmLabel="Revoke key"
            busy={revoke.isPending}
            onCancel={() => setConfirming(false)}
            onConfirm={() => {
              setConfirming(false);
              revoke.mutate();
            }}
          >
            <p>
              Agents using <code>{key.prefix}…</code> are refused from the next request. This cannot
              be undone: create a new key to reconnect them.
            </p>
          </ConfirmDialog>
        </td>
      )}
    </tr>
  );
}

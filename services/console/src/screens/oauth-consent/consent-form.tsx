import { useMutation } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { decide, type AuthorizationRequest, type Decision } from '../../api/oauth-consent';
import { describeError } from '../../ui/describe-error';
import { EXPIRED_REQUEST, isGone } from './expired-request';

/**
 * The question itself: which app, what it may do (the API's words for each scope), in which
 * tenant (one where the user is an owner or admin), and where the answer sends the browser.
 * Approve and Deny both use the request up; the browser then goes back to the app with a code
 * or with access_denied. A plain form: Tab reaches the select and both buttons, Enter in the
 * select approves.
 */
export function ConsentForm({
  request,
  email,
}: {
  request: AuthorizationRequest;
  email: string | undefined;
}) {
  const id = useId();
  const app = request.client.name || request.client.redirect_host;
  const host = request.client.redirect_host;
  const [tenantId, setTenantId] = useState(request.tenants[0]?.id ?? '');
  const answer = useMutation({
    mutationFn: (decision: Decision) => decide(request.id, decision),
    // The app's redirect URI, on another origin: a page load, not a route of the console.
    onSuccess: ({ redirect_to }) => window.location.assign(redirect_to),
  });
  const busy = answer.isPending || answer.isSuccess;
  const noTenant = request.tenants.length === 0;
  return (
    <>
      <h1>Allow {app} to use your CRM?</h1>
      <p>
        {request.client.document_host
          ? `${app} is published by ${request.client.document_host}.`
          : `${app} registered itself under this name, which nobody has verified: approve it only if you started this sign-in from the app.`}
      </p>
      {email && (
        <p className="muted">
          Signed in as <strong>{email}</strong>.
        </p>
      )}
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          if (!noTenant) answer.mutate({ decision: 'approve', tenant_id: tenantId });
        }}
      >
        <p id={`${id}-scopes`}>{app} asks to:</p>
        <ul className="consent-scopes" aria-labelledby={`${id}-scopes`}>
          {request.scopes.map(({ scope, description }) => (
            <li key={scope}>
              {description} <code className="muted">{scope}</code>
            </li>
          ))}
        </ul>
        {noTenant ? (
          <p id={`${id}-no-tenant`} className="warning">
            Only the owners and admins of a workspace can connect apps to it, and you are not an
            owner or admin of any. Ask one of them to connect the app, or deny the request.
          </p>
        ) : (
          <div className="field">
            <label htmlFor={`${id}-tenant`}>Workspace</label>
            <select
              id={`${id}-tenant`}
              value={tenantId}
              onChange={(event) => setTenantId(event.target.value)}
            >
              {request.tenants.map((tenant) => (
                <option key={tenant.id} value={tenant.id}>
                  {tenant.name} ({tenant.role})
                </option>
              ))}
            </select>
          </div>
        )}
        <p>After your answer you go back to {host}.</p>
        <div className="actions">
          <button
            type="submit"
            disabled={noTenant || busy}
            aria-describedby={noTenant ? `${id}-no-tenant` : undefined}
          >
            Approve
          </button>
          <button type="button" disabled={busy} onClick={() => answer.mutate({ decision: 'deny' })}>
            Deny
          </button>
        </div>
      </form>
      {answer.isSuccess && (
        <p role="status" className="muted">
          Going back to {host}…
        </p>
      )}
      {answer.isError && (
        <p role="alert" className="problem">
          {isGone(answer.error) ? EXPIRED_REQUEST : describeError(answer.error)}
        </p>
      )}
    </>
  );
}

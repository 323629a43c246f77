import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { authorizationRequestKey, fetchAuthorizationRequest } from '../../api/oauth-consent';
import { useMe } from '../../session/use-me';
import { Problem } from '../../ui/problem';
import { Loading } from '../../ui/states';
import { ConsentForm } from './consent-form';
import { EXPIRED_REQUEST, isGone } from './expired-request';

/**
 * /oauth/consent?request=<id>, where the gateway's /api/oauth/authorize sends the browser: the
 * signed-in user allows an app (an MCP client) to use one of their tenants with the scopes it
 * asks for, or denies it, and goes back to the app either way. Outside the signed-in layout (no
 * tenant needs to be selected), but signed out the request is a 401, and Problem sends the user
 * to sign-in, which comes back here with the query string.
 */
export function ConsentScreen() {
  const [params] = useSearchParams();
  const id = params.get('request') ?? '';
  const request = useQuery({
    queryKey: authorizationRequestKey(id),
    queryFn: ({ signal }) => fetchAuthorizationRequest(id, signal),
    enabled: id !== '',
    // Answered, the request is gone: asking again would only turn the page into the 404.
    staleTime: Infinity,
  });
  // Who is about to connect their CRM: first-requests.ts has already asked for the session.
  const me = useMe();
  return (
    <main className="auth consent">
      {id === '' || (request.isError && isGone(request.error)) ? (
        <>
          <h1>Connect an app</h1>
          <p role="alert" className="problem">
            {EXPIRED_REQUEST}
          </p>
        </>
      ) : request.isPending ? (
        <Loading what="the app's request" />
      ) : request.isError ? (
        <>
          <h1>Connect an app</h1>
          <Problem error={request.error} onRetry={() => void request.refetch()} />
        </>
      ) : (
        <ConsentForm request={request.data} email={me.data?.user.email} />
      )}
    </main>
  );
}

import { Navigate, useLocation } from 'react-router';
import { ApiError } from '../api/client';
import { describeError } from './describe-error';

/**
 * The error state of every screen: a 401 goes to sign-in (which comes back to this page with
 * its query string: the consent page's ?request=), a 403 says which role is needed, a 429 says
 * when to retry; anything else shows the server's message and a retry button.
 */
export function Problem({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const location = useLocation();
  if (error instanceof ApiError && error.status === 401) {
    return <Navigate to="/sign-in" replace state={{ from: location.pathname + location.search }} />;
  }
  return (
    <div role="alert" className="problem">
      <p>{describeError(error)}</p>
      {onRetry && (
        <button type="button" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

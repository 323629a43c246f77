import { Navigate, useLocation } from 'react-router';
import { ApiError } from '../api/client';

/**
 * The error state of every screen: a 401 goes to sign-in, a 403 says which role is needed, a
 * 429 says when to retry; anything else shows the server's message and a retry button.
 */
export function Problem({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const location = useLocation();
  if (error instanceof ApiError && error.status === 401) {
    return <Navigate to="/sign-in" replace state={{ from: location.pathname }} />;
  }
  return (
    <div role="alert" className="problem">
      <p>{describe(error)}</p>
      {onRetry && (
        <button type="button" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function describe(error: unknown): string {
  if (!(error instanceof ApiError)) return 'Something went wrong. Check your connection.';
  if (error.status === 403) {
    return `${error.message}. This needs a role your account does not have in this tenant (a viewer may only read; managing members needs owner or admin): ask an owner or admin.`;
  }
  if (error.status === 429) {
    const wait = error.retryAfterSeconds;
    return wait
      ? `Too many requests. Try again in ${wait} second${wait === 1 ? '' : 's'} (after ${new Date(Date.now() + wait * 1000).toLocaleTimeString()}).`
      : 'Too many requests. Try again in a minute.';
  }
  return error.message;
}

import { QueryClient } from '@tanstack/react-query';
import { ApiError } from './api/client';

/**
 * The console's one query cache: the app renders with it, and the routes' loaders start their
 * screens' first requests in it before the screens' code has loaded (routes.tsx).
 */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A 4xx does not get better by asking again (and a 429 says when to).
      retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
      refetchOnWindowFocus: false,
    },
  },
});

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { signOut } from '../api/auth';

/** Ends the session (the gateway clears its cookies) and forgets every cached answer. */
export function SignOutButton() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const mutation = useMutation({
    mutationFn: signOut,
    onSettled: async () => {
      queryClient.clear();
      await navigate('/sign-in', { replace: true });
    },
  });
  return (
    <button type="button" onClick={() => mutation.mutate()} disabled={mutation.isPending}>
      Sign out
    </button>
  );
}

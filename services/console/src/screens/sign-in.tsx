import { zodResolver } from '@hookform/resolvers/zod';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { Link, useLocation, useNavigate } from 'react-router';
import * as z from 'zod/mini';
import { signIn } from '../api/auth';
import { returnTo } from '../session/return-to';
import { describeError } from '../ui/describe-error';
import { Field } from '../ui/field';

const schema = z.object({
  email: z.email('Enter your email address'),
  password: z.string().check(z.minLength(1, 'Enter your password')),
});

export function SignInScreen() {
  const navigate = useNavigate();
  const location = useLocation();
  const queryClient = useQueryClient();
  const form = useForm({
    resolver: zodResolver(schema),
    defaultValues: { email: '', password: '' },
  });
  const mutation = useMutation({
    mutationFn: signIn,
    onSuccess: async () => {
      queryClient.clear();
      await navigate(returnTo(location.state), { replace: true });
    },
  });
  const { errors } = form.formState;
  return (
    <main className="auth">
      <h1>Sign in</h1>
      <form onSubmit={form.handleSubmit((values) => mutation.mutate(values))} noValidate>
        <Field
          label="Email"
          type="email"
          autoComplete="username"
          error={errors.email?.message}
          registration={form.register('email')}
        />
        <Field
          label="Password"
          type="password"
          autoComplete="current-password"
          error={errors.password?.message}
          registration={form.register('password')}
        />
        {mutation.isError && (
          <p role="alert" className="problem">
            {describeError(mutation.error)}
          </p>
        )}
        <button type="submit" disabled={mutation.isPending}>
          Sign in
        </button>
      </form>
      <p>
        No account yet?{' '}
        <Link to="/sign-up" state={location.state as unknown}>
          Sign up
        </Link>
      </p>
    </main>
  );
}

import { zodResolver } from '@hookform/resolvers/zod';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { Link, useLocation, useNavigate } from 'react-router';
import * as z from 'zod/mini';
import { signUp } from '../api/auth';
import { returnTo } from '../session/return-to';
import { describeError } from '../ui/describe-error';
import { Field } from '../ui/field';

/** The gateway's sign-up rules (services/gateway/src/auth/auth.schema.ts), checked before sending. */
const schema = z.object({
  name: z.string().check(z.trim(), z.maxLength(200, 'At most 200 characters')),
  email: z.email('Enter a valid email address').check(z.maxLength(320)),
  password: z.string().check(z.minLength(8, 'At least 8 characters'), z.maxLength(200)),
  tenantName: z
    .string()
    .check(z.trim(), z.minLength(1, 'Name your organisation'), z.maxLength(200)),
});

export function SignUpScreen() {
  const navigate = useNavigate();
  const location = useLocation();
  const queryClient = useQueryClient();
  const form = useForm({
    resolver: zodResolver(schema),
    defaultValues: { name: '', email: '', password: '', tenantName: '' },
  });
  const mutation = useMutation({
    mutationFn: (values: z.infer<typeof schema>) =>
      signUp({ ...values, name: values.name || undefined }),
    onSuccess: async () => {
      queryClient.clear();
      await navigate(returnTo(location.state), { replace: true });
    },
  });
  const { errors } = form.formState;
  return (
    <main className="auth">
      <h1>Sign up</h1>
      <form onSubmit={form.handleSubmit((values) => mutation.mutate(values))} noValidate>
        <Field
          label="Your name"
          autoComplete="name"
          error={errors.name?.message}
          registration={form.register('name')}
        />
        <Field
          label="Email"
          type="email"
          autoComplete="email"
          error={errors.email?.message}
          registration={form.register('email')}
        />
        <Field
          label="Password"
          type="password"
          autoComplete="new-password"
          error={errors.password?.message}
          registration={form.register('password')}
        />
        <Field
          label="Organisation"
          autoComplete="organization"
          error={errors.tenantName?.message}
          registration={form.register('tenantName')}
        />
        {mutation.isError && (
          <p role="alert" className="problem">
            {describeError(mutation.error)}
          </p>
        )}
        <button type="submit" disabled={mutation.isPending}>
          Create account
        </button>
      </form>
      <p>
        Already have an account?{' '}
        <Link to="/sign-in" state={location.state as unknown}>
          Sign in
        </Link>
      </p>
    </main>
  );
}

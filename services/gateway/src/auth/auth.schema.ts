import { z } from 'zod';

const email = z.email({ message: 'must be an email address' }).max(320);
const password = z.string().min(8, { message: 'must be at least 8 characters' }).max(200);

export const signUpSchema = z.object({
  email,
  password,
  name: z.string().trim().max(200).optional(),
  tenantName: z.string().trim().min(1, { message: 'is required' }).max(200),
});
export const signInSchema = z.object({ email: z.string().max(320), password: z.string().max(200) });
export const activeTenantSchema = z.object({
  tenantId: z.uuid({ message: 'must be a tenant id (uuid)' }),
});

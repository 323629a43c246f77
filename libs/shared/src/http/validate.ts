import type { z } from 'zod';
import { errors } from '../errors';

/**
 * Parses `input` with `schema`, or throws 400 `VALIDATION_ERROR` with the zod issues
 * (path, message, code) in `details`.
 */
export function validate<S extends z.ZodType>(
  schema: S,
  input: unknown,
  what = 'request',
): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: issue.message,
    code: issue.code,
  }));
  const first = issues[0];
  const where = first.path ? `${first.path}: ` : '';
  throw errors.validation(`Invalid ${what}: ${where}${first.message}`, { issues });
}

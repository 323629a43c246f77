import { ApiError } from '../api/client';
import { describeError } from './describe-error';

/**
 * Which form field a refused write is about, and what to say there: the validation issue's
 * path when the API gives one, else the field its sentence names (`Invalid email`, `A lead
 * with email … already exists`, `Invalid first_name: …`). No field: the form shows it above
 * its button. A 403 or a 429 is never a field's: describeError says what to do.
 */
export function serverFieldError<F extends string>(
  error: unknown,
  fields: readonly F[],
): { field?: F; message: string } {
  if (!(error instanceof ApiError) || error.status === 403 || error.status === 429) {
    return { message: describeError(error) };
  }
  const message = error.detail ?? error.message;
  const issue = error.issues[0];
  const byPath = issue && fields.find((field) => issue.path.split('.')[0] === field);
  if (byPath) return { field: byPath, message: issue.message };
  const named = fields.find((field) => new RegExp(`\\b${field}\\b`, 'i').test(message));
  return { field: named, message };
}

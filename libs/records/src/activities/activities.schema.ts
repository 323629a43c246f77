import { ACTIVITY_TYPES } from '@crm/shared/db';
import { dateTimeField } from '@crm/shared/http';
import { z } from 'zod';

export const MAX_ACTIVITY_SUBJECT = 300;
export const MAX_ACTIVITY_BODY = 20_000;

/** An activity: what happened (a call, an email, ...), when, and its text. */
export const activityInputSchema = z.object({
  type: z.enum(ACTIVITY_TYPES, { error: `type must be one of: ${ACTIVITY_TYPES.join(', ')}` }),
  subject: z
    .string({ error: `subject must be a string of at most ${MAX_ACTIVITY_SUBJECT} characters` })
    .trim()
    .max(MAX_ACTIVITY_SUBJECT, {
      error: `subject must be a string of at most ${MAX_ACTIVITY_SUBJECT} characters`,
    })
    .nullish(),
  body: z
    .string({ error: `body must be a string of at most ${MAX_ACTIVITY_BODY} characters` })
    .max(MAX_ACTIVITY_BODY, {
      error: `body must be a string of at most ${MAX_ACTIVITY_BODY} characters`,
    })
    .nullish(),
  occurred_at: dateTimeField('occurred_at').optional(),
  custom_fields: z
    .record(z.string(), z.unknown(), { error: 'custom_fields must be an object' })
    .default({}),
});
export type ActivityInput = z.infer<typeof activityInputSchema>;

import type { z } from 'zod';
import { bodySchema, identifierField, nameField, stringField } from './admin-rules';

export const createSchema = bodySchema({
  phone_number_id: identifierField('phone_number_id', 100),
  display_phone_number: stringField('display_phone_number')
    .trim()
    .min(1, { message: 'display_phone_number must not be empty' })
    .max(50, { message: 'display_phone_number must be at most 50 characters' })
    .regex(/^[+0-9 ().-]+$/, {
      message: 'display_phone_number may hold only digits, spaces and + - . ( )',
    })
    .optional(),
  name: nameField.optional(),
});
export type MessagingAccountInput = z.infer<typeof createSchema>;

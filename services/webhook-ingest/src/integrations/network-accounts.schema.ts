import type { z } from 'zod';
import { bodySchema, identifierField, nameField } from './admin-rules';

export const createSchema = bodySchema({
  external_account_id: identifierField('external_account_id', 200),
  name: nameField.optional(),
});
export type NetworkAccountInput = z.infer<typeof createSchema>;

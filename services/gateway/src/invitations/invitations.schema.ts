import { z } from 'zod';

export const invitationIdSchema = z.uuid({ message: 'must be an invitation id (uuid)' });

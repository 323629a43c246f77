import { z } from 'zod';

/**
 * An id a client sends (a body field, a filter, a path segment): a uuid, else the message
 * `<what> must be an id (uuid)`. One definition, so every service and library words the refusal
 * the same way.
 */
export const uuid = (what: string) => z.uuid({ message: `${what} must be an id (uuid)` });

import { z } from 'zod';

/** A key of 32+ characters; optional (each service says what an unset key means). */
export const secretKey = () =>
  z.string().min(32, { message: 'must be at least 32 characters' }).optional();

/**
 * The tail of a sealing key's `_PREVIOUS` description (CONNECTION_SECRETS_KEY,
 * AUTOMATION_SECRETS_KEY): what its service does with the previous key during a rotation.
 */
export const RESEALED_AT_START =
  'Stored secrets sealed under it still open, and the service re-seals them under the current ' +
  'key at start, in the background (docs/operations.md).';

/**
 * A key that rotates without downtime: `<name>`, the current key, and `<name>_PREVIOUS`, set
 * during a rotation only, which is still accepted (a signature checks, a sealed secret opens).
 * Every such pair is declared here, so the rules of a key (32+ characters, the error text) and
 * the wording of its previous value are one. `previous` is what the service does with it.
 */
export function rotatableKeyPair<N extends string>(
  name: N,
  describe: { current: string; previous: string },
): { [K in N | `${N}_PREVIOUS`]: ReturnType<typeof secretKey> } {
  return {
    [name]: secretKey().describe(describe.current),
    [`${name}_PREVIOUS`]: secretKey().describe(
      `During a rotation only: the previous ${name}. ${describe.previous}`,
    ),
  } as { [K in N | `${N}_PREVIOUS`]: ReturnType<typeof secretKey> };
}

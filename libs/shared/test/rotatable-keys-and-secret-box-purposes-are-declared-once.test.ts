import { loadConfig, rotatableKeyPair, serviceEnv } from '@crm/shared/config';
import {
  configuredSecretBox,
  createPurposeSecretBox,
  CONNECTION_SECRETS,
  WORKFLOW_SIGNING_SECRETS,
} from '@crm/shared/crypto';

/**
 * Unit tier: the one declaration of a rotatable key pair (`<NAME>` and `<NAME>_PREVIOUS`) and
 * the one list of secret box purposes the services wire their boxes from.
 */
describe('rotatableKeyPair', () => {
  const schema = serviceEnv.extend(
    rotatableKeyPair('SOME_KEY', { current: 'The key.', previous: 'Still accepted.' }),
  );

  it('declares the key and its previous value, both optional and 32+ characters', () => {
    expect(loadConfig('x', schema, {})).not.toHaveProperty('SOME_KEY');
    const key = 'k'.repeat(32);
    expect(loadConfig('x', schema, { SOME_KEY: key, SOME_KEY_PREVIOUS: key })).toMatchObject({
      SOME_KEY: key,
      SOME_KEY_PREVIOUS: key,
    });
    expect(() => loadConfig('x', schema, { SOME_KEY_PREVIOUS: 'short' })).toThrow(
      'SOME_KEY_PREVIOUS: must be at least 32 characters',
    );
  });

  it('describes the previous value in the words every pair shares', () => {
    expect(schema.shape.SOME_KEY.description).toBe('The key.');
    expect(schema.shape.SOME_KEY_PREVIOUS.description).toBe(
      'During a rotation only: the previous SOME_KEY. Still accepted.',
    );
  });
});

describe('secret box purposes', () => {
  const INTERNAL = 'internal-token-secret-0123456789abcdef';

  it('give each purpose keys of its own, even from the same key material', () => {
    const sealed = createPurposeSecretBox(INTERNAL, CONNECTION_SECRETS).seal('s');
    expect(createPurposeSecretBox(INTERNAL, WORKFLOW_SIGNING_SECRETS).open(sealed)).toBeUndefined();
    expect(CONNECTION_SECRETS.keyName).not.toBe(WORKFLOW_SIGNING_SECRETS.keyName);
  });

  it('wire a box from the purpose`s own key pair in the config', () => {
    const key = 'workflow-signing-key-0123456789abcdef';
    const box = configuredSecretBox(
      WORKFLOW_SIGNING_SECRETS,
      { AUTOMATION_SECRETS_KEY: key, AUTOMATION_SECRETS_KEY_PREVIOUS: INTERNAL },
      { internalTokenSecret: 'another-internal-secret-0123456789abc' },
    );
    expect(createPurposeSecretBox(key, WORKFLOW_SIGNING_SECRETS).open(box.seal('t'))).toBe('t');
    const sealedBefore = createPurposeSecretBox(INTERNAL, WORKFLOW_SIGNING_SECRETS).seal('s');
    expect(box.open(sealedBefore)).toBe('s');
    expect(box.reseal(sealedBefore)).toBeDefined();
  });
});

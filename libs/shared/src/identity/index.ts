export {
  IDENTITY_HEADER,
  ROLES,
  DEFAULT_IDENTITY_TTL_SECONDS,
  signIdentity,
  verifyIdentity,
  type Identity,
  type Role,
  type IdentityRejection,
  type VerifyResult,
} from './identity-token';
export { requireIdentity, identityOf, type IdentitySecrets } from './require-identity';
export { forbidViewerWrites, requireRole, READ_ONLY_POST_PATHS } from './role-rules';

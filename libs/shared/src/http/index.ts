export { AppError, errors, type ErrorCode, type AppErrorInit } from '../errors';
export {
  successBody,
  failureBody,
  sendSuccess,
  type SuccessEnvelope,
  type FailureEnvelope,
} from './response-envelope';
export { requestId, requestIdOf, requestLogger, REQUEST_ID_HEADER } from './request-id';
export { validate } from './validate';
export { dateField, dateTimeField, MIN_DATE, MAX_DATE } from './date-fields';
export { uuid } from './uuid-field';
export { errorHandler, notFoundHandler, toAppError } from './error-handler';
export { databaseErrorToAppError } from './database-errors';
export { jsonBody, rawBody, formBody } from './body-parsers';
export {
  MAX_JSON_DEPTH,
  assertNoHostileInput,
  findHostileInput,
  hostileInputError,
  refuseHostileQuery,
  renderPath,
  unstorableText,
  type HostileInputIssue,
} from './hostile-input-guard';
export {
  checkHealth,
  healthHandler,
  checkReadiness,
  readinessHandler,
  type ReadinessOptions,
  type ReadinessResponse,
  type HealthOptions,
  type HealthResponse,
  type HealthStatus,
  type RetentionCheck,
  type RetentionLag,
} from './health';
export { httpLogger } from './http-logger';
export { createServiceApp, type ServiceAppOptions } from './create-service-app';

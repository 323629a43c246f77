/**
 * The one test kit: every service's tests import their shared support from here, never from
 * another service's test folder. It is @crm/shared/testing (database fixtures, row and outbox
 * read-backs, NATS, proxies, loggers; what the libraries' own tests use, since a library never
 * depends on a service) plus what needs the real gateway: sessions signed in through it and a
 * service listening behind it.
 */
export * from '@crm/shared/testing';
// The fuzzing and hostile-input support lives beside @crm/shared/testing but outside its index
// (it pulls in fast-check and supertest); tests reach it through this kit, never by deep path.
export * from '@crm/shared/testing/hostile-input';
export { describeFuzzedRequests } from '@crm/shared/testing/fuzz-service';
export {
  testGateway,
  createAccount,
  signIn,
  cookieHeader,
  startEchoService,
  upstreamsAt,
  useGatewayWithEcho,
  acceptInvitationTo,
  PASSWORD,
  type TestGateway,
  type EchoService,
  type Received,
} from './gateway';
export {
  useServiceBehindGateway,
  tenantSession,
  sessionClient,
  type ServiceStack,
} from './service-stack';
export { freePortForTests } from './ports';
export { failInsertsOf } from './failing-inserts';
export {
  usePlatformBehindGateway,
  type PlatformStack,
  type PlatformService,
} from './platform-stack';
export { buildConsoleIfMissing } from './console-build';
export {
  launchChromium,
  addSessionCookies,
  watchForProblems,
  saveScreenshot,
  seriousAxeViolations,
  signInThroughConsole,
  downloadFrom,
  gate,
  isSignedOutAnswer,
  isOpeningLeadsPage,
  type ExpectedFailures,
} from './browser';
export { leadImportCsv, LEAD_IMPORT_HEADER, REJECTED_IMPORT_ROWS } from './lead-import-csv';
export {
  itKeepsTheCursorContract,
  CURSOR_REFUSALS,
  type CursorListContract,
  type CursorPageBody,
} from './cursor-list';
export { itCapsItsCountPast10000, type CountCapContract } from './count-cap';
export { grantMcpAccess, type McpGrant, type McpGrantOptions } from './oauth-grants';
export { mcpInitialize, postMcp } from './mcp-requests';

export { testDb, isolatedTestDb, createTenant, createUser, addMember } from './fixtures';
export { eventually, untilWaitingOnLock } from './eventually';
export { startTcpProxy, type TcpProxy } from './tcp-proxy';
export { captureLogger, type CapturedLogger } from './capture-logger';
export { natsUrlForTests } from './nats';
export { describeServiceBasics, testAppDeps, TEST_INTERNAL_TOKEN_SECRET } from './service-basics';
export {
  runServiceProcess,
  startServiceProcess,
  describeStandaloneStart,
  type ProcessResult,
  type ServiceProcess,
} from './standalone';
export { registeredPaths, pathsNotOwnedBy, type RegisteredPath } from './route-ownership';
export { tenantRowCounts, allRowCounts } from './row-counts';
export {
  insertRow,
  rowsWith,
  ledgerRows,
  tenantRows,
  outboxEvents,
  outboxEventsNaming,
} from './read-backs';
export { selectsSent, planReads, statementLog } from './query-plans';
export { roundTripsOf } from './round-trips';
export { sweepPlans, type StatementPlan } from './retention-plans';

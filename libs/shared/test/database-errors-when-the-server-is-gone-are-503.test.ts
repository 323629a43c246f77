import { databaseErrorToAppError } from '../src/http/database-errors';

/*
 * With Postgres cut off, node-postgres fails with its own messages (no
 * SQLSTATE, no socket code). Each must answer 503 SERVICE_UNAVAILABLE, not 500: the
 * reliability suite saw a 500 for a query sent on a client that had just lost its connection.
 */
describe('databaseErrorToAppError for a database that went away', () => {
  it.each([
    'timeout exceeded when trying to connect',
    'Connection terminated unexpectedly',
    'Connection terminated due to connection timeout',
    'Client has encountered a connection error and is not queryable',
    'Client was closed and is not queryable',
    'timeout expired',
    'Query read timeout',
  ])('%s -> 503 SERVICE_UNAVAILABLE', (message) => {
    const mapped = databaseErrorToAppError(new Error(message));
    expect(mapped).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
  });

  it('leaves an unrelated error without a code to the caller (500 by the error handler)', () => {
    expect(databaseErrorToAppError(new Error('something else'))).toBeUndefined();
  });

  it('maps a server error with an unknown SQLSTATE to a database error, not 503', () => {
    expect(databaseErrorToAppError({ code: '42P01', message: 'relation missing' })).toMatchObject({
      code: 'DATABASE_ERROR',
    });
  });
});

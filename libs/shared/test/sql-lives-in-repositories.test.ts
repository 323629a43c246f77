import * as ts from 'typescript';
import { packageSourceRoots, readSource, sourceFilesOf } from './support/package-sources';

/*
 * Every statement of a table lives in its package's `*.repository.ts` (kysely functions taking
 * `db` or `trx`): a reader looking for what touches a table reads the repositories, and a
 * route, worker or handler reads as what it does, not how rows are fetched. This test walks
 * every package's source (services/<name>/src, libs/<name>/src) and names each place outside
 * those files that builds a statement: kysely's statement builders (selectFrom, insertInto,
 * updateTable, deleteFrom, mergeInto), a `sql` template, sql.raw or sql.table, a raw
 * CompiledQuery, or a pg client's `.query(...)`. Comments and strings are not read (the file is
 * parsed), so prose may name them.
 */

/**
 * Where a statement may be written outside a repository, and why:
 * - db/: the connection, the tenant scope, the migrator and the migrations;
 * - events/: the outbox and its relay, the transport every service's events share;
 * - pagination/: builds the page, count and search-walk statements of any list it is given;
 * - service/: the secret resealing worker, run over whichever tables a service names;
 * - testing/: fixtures and read-backs for tests;
 * libs/test-kit: the tests' kit, which seeds a signed-in user as a test's setup.
 * None of them holds a table's own reads and writes: they take the table from their caller
 * or serve every table alike.
 */
const INFRASTRUCTURE_DIRECTORIES = [
  'libs/shared/src/db/',
  'libs/shared/src/events/',
  'libs/shared/src/pagination/',
  'libs/shared/src/service/',
  'libs/shared/src/testing/',
  'libs/test-kit/src/',
];

/** A file where statements belong: a repository, a migration or the cross-tenant lookups. */
export function mayHoldStatements(file: string): boolean {
  const name = file.slice(file.lastIndexOf('/') + 1);
  return (
    name.endsWith('.repository.ts') ||
    file.includes('/migrations/') ||
    name === 'cross-tenant-lookups.ts' ||
    INFRASTRUCTURE_DIRECTORIES.some((dir) => file.startsWith(dir))
  );
}

const STATEMENT_BUILDERS = new Set([
  'selectFrom',
  'insertInto',
  'updateTable',
  'deleteFrom',
  'mergeInto',
]);
/** `sql.raw(text)`, `sql.table(name)`: raw SQL text or a table named by a string. */
const RAW_SQL_HELPERS = new Set(['raw', 'table']);
const PG_CLIENT = /(?:client|pool)$/i;

const isTextArgument = (node: ts.Node | undefined) =>
  node !== undefined &&
  (ts.isStringLiteralLike(node) ||
    ts.isTemplateExpression(node) ||
    ts.isObjectLiteralExpression(node));

/** The name a call is made on: `client` for `client.query`, `listener.client` for deeper ones. */
const receiverName = (node: ts.Expression) =>
  ts.isIdentifier(node) ? node.text : ts.isPropertyAccessExpression(node) ? node.name.text : '';

/** `line: what` for each statement built in the text, in order. */
export function statementsIn(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (node: ts.Node, what: string) =>
    found.push(`${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${what}`);
  const visit = (node: ts.Node) => {
    if (
      ts.isTaggedTemplateExpression(node) &&
      ts.isIdentifier(node.tag) &&
      node.tag.text === 'sql'
    ) {
      at(node, 'sql`...`');
    }
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      const receiver = receiverName(node.expression.expression);
      if (STATEMENT_BUILDERS.has(method)) at(node, `${method}(...)`);
      else if (receiver === 'sql' && RAW_SQL_HELPERS.has(method)) at(node, `sql.${method}(...)`);
      else if (receiver === 'CompiledQuery' && method === 'raw') at(node, 'CompiledQuery.raw(...)');
      else if (
        method === 'query' &&
        (PG_CLIENT.test(receiver) || isTextArgument(node.arguments[0]))
      ) {
        at(node, `${receiver}.query(...)`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('SQL lives in repositories', () => {
  const files = packageSourceRoots().flatMap(sourceFilesOf);
  const withStatements = new Map(
    files
      .map((file) => [file, statementsIn(file, readSource(file))] as const)
      .filter(([, statements]) => statements.length > 0),
  );

  it('sees the statements where they are (sanity: repositories and infrastructure hold some)', () => {
    expect(withStatements.has('libs/records/src/leads/leads.repository.ts')).toBe(true);
    expect(withStatements.has('libs/shared/src/events/relay.ts')).toBe(true);
    expect(withStatements.has('services/migrate/src/tenancy/cross-tenant-lookups.ts')).toBe(true);
  });

  it('no file outside a repository, a migration or the infrastructure builds a statement', () => {
    const misplaced = [...withStatements]
      .filter(([file]) => !mayHoldStatements(file))
      .map(([file, statements]) => `${file}:${statements.join(', ')}`);
    expect(misplaced).toEqual([]);
  });

  it('would catch each kind of statement, and not prose, strings or other calls', () => {
    const text = [
      '// db.selectFrom(...) in a comment; "sql`x`" in a string',
      "const a = trx.selectFrom('crm_leads').selectAll();",
      "await db.insertInto('crm_leads').values(row).execute();",
      'const b = sql<number>`SELECT 1`;',
      "await sql.raw('VACUUM').execute(db);",
      "await client.query('LISTEN x');",
      'await pool.query(text, values);',
      'resource.query(trx, tenantId, filters);',
      "router.get('/x', (req) => req.query);",
    ].join('\n');
    expect(statementsIn('x.ts', text)).toEqual([
      '2: selectFrom(...)',
      '3: insertInto(...)',
      '4: sql`...`',
      '5: sql.raw(...)',
      '6: client.query(...)',
      '7: pool.query(...)',
    ]);
    expect(mayHoldStatements('services/x/src/leads/leads.repository.ts')).toBe(true);
    expect(mayHoldStatements('services/x/src/leads/leads.routes.ts')).toBe(false);
    expect(mayHoldStatements('libs/shared/src/http/error-handler.ts')).toBe(false);
  });
});

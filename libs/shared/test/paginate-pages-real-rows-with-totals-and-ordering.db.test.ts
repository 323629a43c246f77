import { randomUUID } from 'node:crypto';
import type { Express } from 'express';
import { sql } from 'kysely';
import request from 'supertest';
import { createServiceApp, sendSuccess } from '@crm/shared/http';
import { paginate, parsePageQuery, type PageQuery } from '@crm/shared/pagination';
import { captureLogger, createTenant, testDb } from '@crm/shared/testing';

const database = testDb();
const { db } = database;

afterAll(() => database.close());

// Every tenant this file creates has a name starting with its own prefix, so other test files'
// tenants in the shared database never show up in these pages.
const prefix = `pg-${randomUUID().slice(0, 8)}`;
const letters = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
const tiePrefix = `${prefix}-tie`;

/** The tenants of this file whose name starts with `namePrefix`, as a paginate() input. */
const tenantsNamed = (namePrefix: string) =>
  db.selectFrom('tenants').select(['id', 'name']).where('name', 'like', `${namePrefix}%`);

const page = (p: Partial<PageQuery<'name' | 'created_at'>>): PageQuery<'name' | 'created_at'> => ({
  page: 1,
  pageSize: 3,
  sortBy: 'name',
  sortOrder: 'asc',
  ...p,
});

const names = (items: Array<{ name: string }>) => items.map((i) => i.name);

describe('paginate() against the tenants table', () => {
  const idByName = new Map<string, string>();
  const tieIds: string[] = [];

  beforeAll(async () => {
    // Created out of order, so ascending name order is not insertion order.
    for (const letter of ['d', 'a', 'g', 'c', 'f', 'b', 'e']) {
      const { id } = await createTenant(database, `${prefix}-${letter}`);
      idByName.set(`${prefix}-${letter}`, id);
    }
    // created_at runs opposite to the names: a is the newest, g the oldest.
    // (Raw SQL: the schema types created_at as generated, so kysely's update types refuse it.)
    for (const [i, letter] of letters.entries()) {
      const createdAt = new Date(Date.UTC(2024, 0, 20 - i)).toISOString();
      const id = idByName.get(`${prefix}-${letter}`) as string;
      await sql`UPDATE tenants SET created_at = ${createdAt}::timestamptz WHERE id = ${id}`.execute(
        db,
      );
    }
    for (let i = 0; i < 3; i += 1) tieIds.push((await createTenant(database, tiePrefix)).id);
    tieIds.sort();
  });

  it('returns the first page in ascending order with the total and page count', async () => {
    const result = await paginate(
      tenantsNamed(`${prefix}-`).where('name', '!=', tiePrefix),
      page({}),
      'id',
    );
    expect(result).toEqual({
      items: [
        { id: idByName.get(`${prefix}-a`), name: `${prefix}-a` },
        { id: idByName.get(`${prefix}-b`), name: `${prefix}-b` },
        { id: idByName.get(`${prefix}-c`), name: `${prefix}-c` },
      ],
      total: 7,
      page: 1,
      pageSize: 3,
      totalPages: 3,
    });
  });

  it('returns the middle and the last (partial) page', async () => {
    const query = tenantsNamed(`${prefix}-`).where('name', '!=', tiePrefix);
    const second = await paginate(query, page({ page: 2 }), 'id');
    expect(names(second.items)).toEqual(['d', 'e', 'f'].map((l) => `${prefix}-${l}`));
    expect(second).toMatchObject({ total: 7, page: 2, pageSize: 3, totalPages: 3 });
    const third = await paginate(query, page({ page: 3 }), 'id');
    expect(names(third.items)).toEqual([`${prefix}-g`]);
    expect(third).toMatchObject({ total: 7, page: 3, pageSize: 3, totalPages: 3 });
  });

  it('orders descending when asked', async () => {
    const query = tenantsNamed(`${prefix}-`).where('name', '!=', tiePrefix);
    const first = await paginate(query, page({ sortOrder: 'desc' }), 'id');
    expect(names(first.items)).toEqual(['g', 'f', 'e'].map((l) => `${prefix}-${l}`));
    const last = await paginate(query, page({ sortOrder: 'desc', page: 3 }), 'id');
    expect(names(last.items)).toEqual([`${prefix}-a`]);
  });

  it('sorts by another allowed column (created_at runs opposite to the names)', async () => {
    const query = tenantsNamed(`${prefix}-`).where('name', '!=', tiePrefix);
    const oldestFirst = await paginate(
      query,
      page({ sortBy: 'created_at', sortOrder: 'asc', pageSize: 7 }),
      'id',
    );
    expect(names(oldestFirst.items)).toEqual([...letters].reverse().map((l) => `${prefix}-${l}`));
    const newestFirst = await paginate(
      query,
      page({ sortBy: 'created_at', sortOrder: 'desc', pageSize: 2 }),
      'id',
    );
    expect(names(newestFirst.items)).toEqual([`${prefix}-a`, `${prefix}-b`]);
    expect(newestFirst).toMatchObject({ total: 7, totalPages: 4 });
  });

  it('gives empty items and the correct total for a page past the end', async () => {
    const query = tenantsNamed(`${prefix}-`).where('name', '!=', tiePrefix);
    expect(await paginate(query, page({ page: 4 }), 'id')).toEqual({
      items: [],
      total: 7,
      page: 4,
      pageSize: 3,
      totalPages: 3,
    });
    expect(await paginate(query, page({ page: 1000, pageSize: 100 }), 'id')).toEqual({
      items: [],
      total: 7,
      page: 1000,
      pageSize: 100,
      totalPages: 1,
    });
  });

  it('gives total 0 and no pages when nothing matches, on the first page and past it', async () => {
    const nothing = tenantsNamed(`${prefix}-nothing-`);
    expect(await paginate(nothing, page({}), 'id')).toEqual({
      items: [],
      total: 0,
      page: 1,
      pageSize: 3,
      totalPages: 0,
    });
    expect(await paginate(nothing, page({ page: 2 }), 'id')).toEqual({
      items: [],
      total: 0,
      page: 2,
      pageSize: 3,
      totalPages: 0,
    });
  });

  it('returns exactly the selected columns (no window-count column leaks into items)', async () => {
    const result = await paginate(tenantsNamed(`${prefix}-a`), page({}), 'id');
    expect(result.items).toEqual([{ id: idByName.get(`${prefix}-a`), name: `${prefix}-a` }]);
    expect(Object.keys(result.items[0]).sort()).toEqual(['id', 'name']);
  });

  it('breaks ties on the sort column by the tiebreak column, in the same direction', async () => {
    const query = tenantsNamed(tiePrefix);
    const ascending: string[] = [];
    const descending: string[] = [];
    for (let p = 1; p <= 3; p += 1) {
      const asc = await paginate(query, page({ page: p, pageSize: 1 }), 'id');
      const desc = await paginate(query, page({ page: p, pageSize: 1, sortOrder: 'desc' }), 'id');
      expect(asc).toMatchObject({ total: 3, totalPages: 3 });
      ascending.push(...asc.items.map((i) => i.id));
      descending.push(...desc.items.map((i) => i.id));
    }
    // Every row exactly once across the pages, in id order.
    expect(ascending).toEqual(tieIds);
    expect(descending).toEqual([...tieIds].reverse());
  });

  it('agrees with a plain count of the same query', async () => {
    const query = tenantsNamed(prefix);
    const counted = await query
      .clearSelect()
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    const result = await paginate(query, page({ pageSize: 4 }), 'id');
    expect(result.total).toBe(Number(counted.n));
    expect(result.total).toBe(10);
    expect(result.totalPages).toBe(3);
  });
});

describe('paginate() behind an express route', () => {
  let app: Express;

  beforeAll(() => {
    app = createServiceApp({
      logger: captureLogger().logger,
      bodyLimitBytes: 1024,
      health: { version: 'test' },
      routes: (a) => {
        a.get('/tenants', async (req, res) => {
          const query = parsePageQuery(req.query, {
            sortable: ['name', 'created_at'],
            defaultSortBy: 'name',
            defaultSortOrder: 'asc',
          });
          const rows = db
            .selectFrom('tenants')
            .select(['slug', 'name'])
            .where('name', 'like', `${prefix}-%`)
            .where('name', '!=', tiePrefix);
          sendSuccess(res, await paginate(rows, query, 'id'));
        });
      },
    });
  });

  it('serves a page in the success envelope', async () => {
    const res = await request(app).get('/tenants?page=2&pageSize=2&sortBy=name&sortOrder=desc');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        items: [
          { slug: expect.stringMatching(/^t-/), name: `${prefix}-e` },
          { slug: expect.stringMatching(/^t-/), name: `${prefix}-d` },
        ],
        total: 7,
        page: 2,
        pageSize: 2,
        totalPages: 4,
      },
      message: 'OK',
    });
  });

  it('uses the defaults when no page parameters are given', async () => {
    const res = await request(app).get('/tenants');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ total: 7, page: 1, pageSize: 20, totalPages: 1 });
    expect(names(res.body.data.items)).toEqual(letters.map((l) => `${prefix}-${l}`));
  });

  it('serves an empty page past the end with the total', async () => {
    const res = await request(app).get('/tenants?page=9&pageSize=5');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ items: [], total: 7, page: 9, pageSize: 5, totalPages: 2 });
  });

  it('answers pageSize 101 with 400 VALIDATION_ERROR naming the maximum', async () => {
    const res = await request(app).get('/tenants?pageSize=101');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      error: 'Validation failed',
      code: 'VALIDATION_ERROR',
      message: 'Invalid pagination parameters: pageSize: pageSize must be at most 100',
      details: {
        issues: [{ path: 'pageSize', message: 'pageSize must be at most 100', code: 'too_big' }],
      },
    });
  });

  it('answers a sortBy outside the allow-list with 400 listing the allowed columns', async () => {
    const res = await request(app).get('/tenants?sortBy=slug');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.details.issues[0]).toEqual({
      path: 'sortBy',
      message: 'sortBy must be one of: name, created_at',
      code: 'invalid_value',
    });
  });

  it('answers page 0 and a non-numeric pageSize with 400', async () => {
    const zero = await request(app).get('/tenants?page=0');
    expect(zero.status).toBe(400);
    expect(zero.body.details.issues[0].path).toBe('page');
    const words = await request(app).get('/tenants?pageSize=lots');
    expect(words.status).toBe(400);
    expect(words.body.details.issues[0].path).toBe('pageSize');
  });
});

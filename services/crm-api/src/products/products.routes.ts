import { findProduct, listProducts, productChangeSchema, updateProduct } from '@crm/records';
import { withTenant, type Database } from '@crm/shared/db';
import { errors, jsonBody, sendSuccess, validate } from '@crm/shared/http';
import { identityOf } from '@crm/shared/identity';
import { parseCursorPageQuery } from '@crm/shared/pagination';
import { Router } from 'express';
import type { Kysely } from 'kysely';
import { PRODUCT_SORTABLE, productIdSchema } from './product-routes.schema';

/**
 * /api/crm/products: list (paginated by page or cursor), read, change. Products are created by MCP and migrate
 * (upserted by sku); here a user reads them and changes name, description, price, currency or
 * whether one is active. `cursorSecret` signs the list's cursors (the internal token secret).
 */
export function productRoutes(
  db: Kysely<Database>,
  bodyLimitBytes: number,
  cursorSecret: string,
): Router {
  const router = Router();
  router.use('/api/crm/products', jsonBody(bodyLimitBytes));

  router.get('/api/crm/products', async (req, res) => {
    const { tenantId } = identityOf(req);
    const page = parseCursorPageQuery(req.query, {
      sortable: PRODUCT_SORTABLE,
      defaultSortBy: 'created_at',
    });
    const result = await withTenant(db, tenantId, (trx) =>
      listProducts(trx, tenantId, page, {}, { secret: cursorSecret }),
    );
    res.json(result);
  });

  router.get('/api/crm/products/:id', async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = req.params.id;
    if (!productIdSchema.safeParse(id).success) throw errors.notFound('Product not found');
    const product = await withTenant(db, tenantId, (trx) => findProduct(trx, tenantId, id));
    if (!product) throw errors.notFound('Product not found');
    sendSuccess(res, { product });
  });

  router.patch('/api/crm/products/:id', async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = req.params.id;
    if (!productIdSchema.safeParse(id).success) throw errors.notFound('Product not found');
    const change = validate(productChangeSchema, req.body, 'product change');
    const product = await withTenant(db, tenantId, (trx) =>
      updateProduct(trx, tenantId, id, change),
    );
    if (!product) throw errors.notFound('Product not found');
    sendSuccess(res, { product }, { message: 'Product updated' });
  });

  return router;
}

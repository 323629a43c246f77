import { withTenant, type Database } from '@crm/shared/db';
import { errors, jsonBody, sendSuccess, uuid, validate } from '@crm/shared/http';
import { identityOf } from '@crm/shared/identity';
import { parseCursorPageQuery } from '@crm/shared/pagination';
import { Router } from 'express';
import type { Kysely } from 'kysely';
import type { SecretBox } from '@crm/shared/crypto';
import { newSigningSecret } from './signing-secret';
import { refuseNonPublicWebhookTargets } from './public-webhook-target';
import {
  deleteWorkflow,
  findWorkflow,
  insertWorkflow,
  listWorkflows,
  updateWorkflow,
} from './workflows.repository';
import { createWorkflowSchema, updateWorkflowSchema, WORKFLOW_PAGE } from './workflows.schema';

const BASE = '/api/automations/workflows';
const notFound = () => errors.notFound('Workflow not found');

/** A path id that is not a uuid names no workflow: 404, as another tenant's would be. */
export function workflowId(id: string): string {
  if (!uuid('id').safeParse(id).success) throw notFound();
  return id;
}

/**
 * /api/automations/workflows: list (page helper), create (the signing secret shown once),
 * read, update, delete, rotate-secret. Everything runs inside withTenant, so another tenant's
 * workflow is a 404; viewers are refused writes by forbidViewerWrites() before these. A webhook
 * URL whose host is a literal non-public address is refused at save time unless
 * `allowPrivateNetworks` (OUTBOUND_ALLOW_PRIVATE_NETWORKS) is on.
 */
export function workflowRoutes(
  db: Kysely<Database>,
  secrets: SecretBox,
  options: { bodyLimitBytes: number; allowPrivateNetworks: boolean; cursorSecret: string },
) {
  const { bodyLimitBytes, allowPrivateNetworks, cursorSecret } = options;
  const router = Router();
  router.use(BASE, jsonBody(bodyLimitBytes));

  router.get(BASE, async (req, res) => {
    const { tenantId } = identityOf(req);
    const page = parseCursorPageQuery(req.query, WORKFLOW_PAGE);
    res.json(
      await withTenant(db, tenantId, (trx) =>
        listWorkflows(trx, tenantId, page, { secret: cursorSecret }),
      ),
    );
  });

  router.post(BASE, async (req, res) => {
    const { tenantId, userId } = identityOf(req);
    const input = validate(createWorkflowSchema, req.body, 'workflow');
    refuseNonPublicWebhookTargets(input.nodes, allowPrivateNetworks, 'workflow');
    const secret = newSigningSecret();
    const workflow = await withTenant(db, tenantId, (trx) =>
      insertWorkflow(trx, tenantId, userId, input, secrets.seal(secret)),
    );
    sendSuccess(
      res,
      { workflow, signing_secret: secret },
      { status: 201, message: 'Workflow created' },
    );
  });

  router.get(`${BASE}/:id`, async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = workflowId(req.params.id);
    const stored = await withTenant(db, tenantId, (trx) => findWorkflow(trx, tenantId, id));
    if (!stored) throw notFound();
    const { signing_secret_sealed: _sealed, ...workflow } = stored;
    sendSuccess(res, { workflow });
  });

  router.patch(`${BASE}/:id`, async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = workflowId(req.params.id);
    const change = validate(updateWorkflowSchema, req.body, 'workflow change');
    refuseNonPublicWebhookTargets(change.nodes, allowPrivateNetworks, 'workflow change');
    const workflow = await withTenant(db, tenantId, (trx) =>
      updateWorkflow(trx, tenantId, id, change),
    );
    if (!workflow) throw notFound();
    sendSuccess(res, { workflow }, { message: 'Workflow updated' });
  });

  router.delete(`${BASE}/:id`, async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = workflowId(req.params.id);
    const deleted = await withTenant(db, tenantId, (trx) => deleteWorkflow(trx, tenantId, id));
    if (!deleted) throw notFound();
    sendSuccess(res, { id }, { message: 'Workflow deleted' });
  });

  router.post(`${BASE}/:id/rotate-secret`, async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = workflowId(req.params.id);
    const secret = newSigningSecret();
    const workflow = await withTenant(db, tenantId, (trx) =>
      updateWorkflow(trx, tenantId, id, { sealedSecret: secrets.seal(secret) }),
    );
    if (!workflow) throw notFound();
    sendSuccess(res, { workflow, signing_secret: secret }, { message: 'Signing secret rotated' });
  });

  return router;
}

import type { Trx } from '@crm/shared/db';

export interface CompletedImport {
  tenantId: string;
  userId: string;
  total: number;
  imported: number;
  failed: number;
  startedAt: Date;
  finishedAt: Date;
}

/** Records a finished lead import in `import_jobs`, in the import's own transaction. */
export async function insertCompletedLeadImport(trx: Trx, job: CompletedImport): Promise<void> {
  await trx
    .insertInto('import_jobs')
    .values({
      tenant_id: job.tenantId,
      user_id: job.userId,
      kind: 'leads',
      status: 'completed',
      total: job.total,
      imported: job.imported,
      failed: job.failed,
      started_at: job.startedAt,
      finished_at: job.finishedAt,
      duration_ms: job.finishedAt.getTime() - job.startedAt.getTime(),
    })
    .execute();
}

import { describeStandaloneStart } from '@crm/test-kit';

describeStandaloneStart('webhook-ingest', 'WEBHOOK_INGEST_PORT');

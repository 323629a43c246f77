import { describeStandaloneStart } from '@crm/shared/testing';

describeStandaloneStart('webhook-ingest', 'WEBHOOK_INGEST_PORT');

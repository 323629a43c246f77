import { describeStandaloneStart } from '@crm/shared/testing';

describeStandaloneStart('migrate', 'MIGRATE_PORT');

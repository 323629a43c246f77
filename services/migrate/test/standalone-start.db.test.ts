import { describeStandaloneStart } from '@crm/test-kit';

describeStandaloneStart('migrate', 'MIGRATE_PORT');

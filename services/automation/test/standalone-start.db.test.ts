import { describeStandaloneStart } from '@crm/test-kit';

describeStandaloneStart('automation', 'AUTOMATION_PORT');

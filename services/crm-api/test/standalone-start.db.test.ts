import { describeStandaloneStart } from '@crm/test-kit';

describeStandaloneStart('crm-api', 'CRM_API_PORT');

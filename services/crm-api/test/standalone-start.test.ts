import { describeStandaloneStart } from '@crm/shared/testing';

describeStandaloneStart('crm-api', 'CRM_API_PORT');

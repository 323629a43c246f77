import { describeStandaloneStart } from '@crm/shared/testing';

describeStandaloneStart('automation', 'AUTOMATION_PORT');

import { describeStandaloneStart } from '@crm/test-kit';

describeStandaloneStart('gateway', 'GATEWAY_PORT');

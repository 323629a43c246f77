import { describeStandaloneStart } from '@crm/shared/testing';

describeStandaloneStart('gateway', 'GATEWAY_PORT');

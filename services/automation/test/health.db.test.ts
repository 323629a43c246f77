import { describeServiceBasics } from '@crm/test-kit';
import { service } from '../src/main';

describeServiceBasics(service);

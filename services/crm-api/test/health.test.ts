import { describeServiceBasics } from '@crm/shared/testing';
import { service } from '../src/main';

describeServiceBasics(service);

import { describeFuzzedRequests } from '@crm/shared/testing/fuzz-service';
import { service } from '../src/main';

// Issue 9, item 6: hostile query strings, headers and bodies at what migrate serves.
describeFuzzedRequests(service, ['/health', '/api/migrate/leads', '/nowhere']);

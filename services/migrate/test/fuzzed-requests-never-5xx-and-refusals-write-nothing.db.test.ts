import { describeFuzzedRequests } from '@crm/test-kit';
import { service } from '../src/main';

// Hostile query strings, headers and bodies at what migrate serves.
describeFuzzedRequests(service, ['/health', '/api/migrate/leads', '/nowhere']);

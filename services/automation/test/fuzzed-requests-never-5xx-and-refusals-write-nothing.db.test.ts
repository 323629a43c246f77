import { describeFuzzedRequests } from '@crm/test-kit';
import { service } from '../src/main';

// Hostile query strings, headers and bodies at what automation serves.
describeFuzzedRequests(service, [
  '/health',
  '/api/automations',
  '/api/automations/x',
  '/api/automations/workflows',
  '/api/automations/workflows/00000000-0000-4000-8000-000000000000',
  '/api/automations/workflows/00000000-0000-4000-8000-000000000000/test',
  '/api/automations/runs/x',
  '/api/events',
  '/api/events/types',
  '/nowhere',
]);

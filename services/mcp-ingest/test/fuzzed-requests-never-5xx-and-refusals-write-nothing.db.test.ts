import { describeFuzzedRequests } from '@crm/test-kit';
import { service } from '../src/main';

// Hostile query strings, headers and bodies at what mcp-ingest serves.
describeFuzzedRequests(service, ['/health', '/api/mcp/keys', '/api/mcp/keys/x', '/api/mcp']);

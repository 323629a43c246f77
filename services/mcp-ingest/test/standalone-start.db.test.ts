import { describeStandaloneStart } from '@crm/test-kit';

describeStandaloneStart('mcp-ingest', 'MCP_INGEST_PORT');

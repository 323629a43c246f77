import { describeStandaloneStart } from '@crm/shared/testing';

describeStandaloneStart('mcp-ingest', 'MCP_INGEST_PORT');

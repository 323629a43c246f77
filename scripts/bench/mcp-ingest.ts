import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { loadConfig } from '../../libs/shared/src/config';
import { withSystemScope, type Db } from '../../libs/shared/src/db';
import { closeServer, listen } from '../../libs/shared/src/service';
import { grantMcpAccess } from '../../libs/test-kit/src/oauth-grants';
import { service as gateway } from '../../services/gateway/src/main';
import { generateKey } from '../../services/mcp-ingest/src/keys/api-key';
import { service as mcpService } from '../../services/mcp-ingest/src/main';
import { benchDeps } from './bench-deps';

async function connectedClient(url: string, credential: string): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${credential}` } },
    }),
  );
  return client;
}

/**
 * MCP through the gateway with the SDK's own client: ingest_leads sending `count` new leads in
 * one tool call, and search_leads (20 rows) with a key and with an OAuth access token of the
 * same tenant and scopes, to compare what resolving each credential costs.
 */
export async function mcpIngest(database: Db, tenantId: string) {
  const deps = benchDeps(database);
  const svc = await listen(
    mcpService.createApp(deps, loadConfig('mcp-ingest', mcpService.configSchema, {})),
    0,
    '127.0.0.1',
  );
  const svcUrl = `http://127.0.0.1:${(svc.address() as AddressInfo).port}`;
  const gw = await listen(
    gateway.createApp(
      deps,
      loadConfig('gateway', gateway.configSchema, { MCP_INGEST_URL: svcUrl }),
    ),
    0,
    '127.0.0.1',
  );
  const gwUrl = `http://127.0.0.1:${(gw.address() as AddressInfo).port}`;
  const key = generateKey();
  await withSystemScope(database.db, (trx) =>
    trx
      .insertInto('mcp_keys')
      .values({
        tenant_id: tenantId,
        name: 'bench',
        prefix: key.prefix,
        key_hash: key.hash,
        scopes: ['mcp:ingest:leads', 'mcp:read:leads'],
      })
      .execute(),
  );
  // The resource the token is bound to is the gateway's default PUBLIC_BASE_URL's MCP server,
  // which this gateway (no PUBLIC_BASE_URL given) serves.
  const grant = await grantMcpAccess(database, tenantId, {
    scopes: ['mcp:ingest:leads', 'mcp:read:leads'],
  });
  const client = await connectedClient(`${gwUrl}/api/mcp`, key.secret);
  const tokenClient = await connectedClient(`${gwUrl}/api/mcp`, grant.accessToken);
  const search = async (by: Client) => {
    const result = await by.callTool({ name: 'search_leads', arguments: { limit: 20 } });
    if (result.isError) throw new Error(`search_leads failed: ${JSON.stringify(result)}`);
  };
  return {
    searchWithKey: () => search(client),
    searchWithToken: () => search(tokenClient),
    ingestLeads: async (count: number, run: number) => {
      const records = Array.from({ length: count }, (_, i) => ({
        email: `mcp-${run}-${i}@example.com`,
        first_name: 'Bench',
        last_name: `Lead ${i}`,
        phone: '+1 555 0100',
        status: 'new',
        lead_source: 'Web Form',
        company: 'Bench Corp',
      }));
      const result = await client.callTool({ name: 'ingest_leads', arguments: { records } });
      const out = result.structuredContent as { imported: number } | undefined;
      if (out?.imported !== count)
        throw new Error(`ingest_leads failed: ${JSON.stringify(result)}`);
    },
    close: async () => {
      await client.close();
      await tokenClient.close();
      await closeServer(gw, 1000);
      await closeServer(svc, 1000);
    },
  };
}

import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import {
  allowsBatches,
  requestRevision,
  unsupportedRevisionHeader,
} from '../src/mcp/protocol-revision';

const initialize = (protocolVersion: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 't', version: '1' } },
});
const toolsList = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };

describe('the protocol revision of one request', () => {
  it("is an initialize's own (the one the server answers), before any header", () => {
    expect(requestRevision([initialize('2025-03-26')], '2025-06-18')).toBe('2025-03-26');
    expect(requestRevision([initialize('1999-01-01')], undefined)).toBe(LATEST_PROTOCOL_VERSION);
  });

  it('is the MCP-Protocol-Version header otherwise, and 2025-03-26 without one', () => {
    expect(requestRevision([toolsList], '2025-06-18')).toBe('2025-06-18');
    expect(requestRevision([toolsList, 42, null], undefined)).toBe('2025-03-26');
  });
});

describe('batches', () => {
  it.each(['2024-10-07', '2024-11-05', '2025-03-26'])('are allowed under %s', (revision) => {
    expect(allowsBatches(revision)).toBe(true);
  });

  it.each(['2025-06-18', '2025-11-25', LATEST_PROTOCOL_VERSION])(
    'are refused under %s, which has no batching',
    (revision) => {
      expect(allowsBatches(revision)).toBe(false);
    },
  );

  it.each(['2024-01-01', 'garbage', ''])('are refused under an unknown revision %j', (revision) => {
    expect(allowsBatches(revision)).toBe(false);
  });
});

describe('the MCP-Protocol-Version header', () => {
  it('of a request other than initialize must name a supported revision', () => {
    expect(unsupportedRevisionHeader([toolsList], '2099-01-01')).toBe('2099-01-01');
    expect(unsupportedRevisionHeader([toolsList, toolsList], 'garbage')).toBe('garbage');
    expect(unsupportedRevisionHeader([toolsList], '2025-11-25')).toBeUndefined();
    expect(unsupportedRevisionHeader([toolsList], undefined)).toBeUndefined();
  });

  it('of an initialize is not checked: it asks in its body', () => {
    expect(unsupportedRevisionHeader([initialize('2025-06-18')], '2099-01-01')).toBeUndefined();
  });
});

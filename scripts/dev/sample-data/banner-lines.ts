import type { SampleDataOutcome } from './seed-sample-data';

/**
 * The banner's sample-data lines. The MCP key appears only in the banner, which is only written
 * to a terminal, and only at the start that created it: the platform keeps its hash alone, so
 * later banners say where to make another.
 */
export function sampleDataLines(outcome: SampleDataOutcome, echoUrl: string): string[] {
  const echo = `    echo      ${echoUrl}   (a local webhook receiver: point workflows here; it logs each request)`;
  switch (outcome.state) {
    case 'seeded': {
      const c = outcome.counts;
      return [
        '  Sample data (docs/sample-data.md)',
        `    records   ${c.leads} leads, ${c.contacts} contacts, ${c.deals} deals, ${c.forms} form with ${c.submissions} submissions, ${c.workflows} workflow`,
        `    MCP key   ${outcome.mcpKey}`,
        '              (shown this once: copy it now; scopes mcp:ingest:leads, mcp:ingest:contacts)',
        echo,
      ];
    }
    case 'already present':
      return [
        '  Sample data (docs/sample-data.md)',
        '    records   already in the demo tenant: not written again',
        '    MCP key   shown at the first start only; create another: POST /api/mcp/keys (docs/mcp.md)',
        echo,
      ];
    case 'off':
      return ['  Sample data  off (--no-sample-data or SAMPLE_DATA=false)', echo];
    case 'failed':
      return [`  Sample data  not complete: ${outcome.reason} (see the log)`, echo];
  }
}

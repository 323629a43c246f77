import { randomBytes } from 'node:crypto';
import { Webhook } from 'svix/dist/webhook';
import { ConfigError } from '../../libs/shared/src/config';
import { banner } from '../dev/banner';
import { checkSignature } from '../dev/echo-receiver';
import { generateSampleData, SAMPLE_SIZES } from '../dev/sample-data/generate';
import type { SampleDataOutcome } from '../dev/sample-data/seed-sample-data';
import { startOptions } from '../dev/start-options';

describe('the sample data', () => {
  const data = generateSampleData();

  it('is the same on every machine and every first start (a fixed seed)', () => {
    expect(generateSampleData()).toEqual(data);
    expect(generateSampleData(SAMPLE_SIZES, 7)).not.toEqual(data);
  });

  it('has the sizes asked for, one person per email', () => {
    expect(data.leads).toHaveLength(SAMPLE_SIZES.leads);
    expect(data.contacts).toHaveLength(SAMPLE_SIZES.contacts);
    expect(data.deals).toHaveLength(SAMPLE_SIZES.deals);
    expect(data.submissions).toHaveLength(SAMPLE_SIZES.submissions);
    const people = [...data.leads, ...data.contacts].map((p) => p.email);
    expect(new Set(people).size).toBe(people.length);
    expect(people.every((email) => email.endsWith('.example'))).toBe(true);
  });

  it('spreads over every lead status, several sources and every deal stage', () => {
    expect(new Set(data.leads.map((l) => l.status))).toEqual(
      new Set(['new', 'contacted', 'qualified', 'unqualified', 'converted', 'lost']),
    );
    expect(new Set(data.leads.map((l) => l.source)).size).toBeGreaterThanOrEqual(6);
    expect(new Set(data.deals.map((d) => d.stage))).toEqual(
      new Set(['lead', 'qualified', 'proposal', 'negotiation', 'won', 'lost']),
    );
  });

  it('has deals about its own leads and contacts, closed ones in the past', () => {
    for (const deal of data.deals) {
      if (deal.leadIndex !== undefined) expect(data.leads[deal.leadIndex]).toBeDefined();
      else expect(data.contacts[deal.contactIndex as number]).toBeDefined();
      if (deal.stage === 'won' || deal.stage === 'lost') expect(deal.closesInDays).toBeLessThan(0);
      else expect(deal.closesInDays).toBeGreaterThan(0);
    }
  });

  it('has form submissions from newcomers and from some who are leads already', () => {
    const leadEmails = new Set(data.leads.map((l) => l.email));
    const returning = data.submissions.filter((s) => leadEmails.has(s.email));
    expect(returning.length).toBeGreaterThan(0);
    expect(returning.length).toBeLessThan(data.submissions.length);
  });
});

describe('the echo receiver signature check', () => {
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const body = Buffer.from('{"module":"forms"}');
  const now = new Date();
  // Signed by the library the automation service signs with (Standard Webhooks).
  const headers = {
    'webhook-id': 'msg_1_0',
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign('msg_1_0', now, body.toString()),
  };

  it("verifies what the workflow's secret signed", () => {
    expect(checkSignature([secret], headers, body)).toBe('verified');
  });

  it('refuses another body, another secret or a stale timestamp', () => {
    expect(checkSignature([secret], headers, Buffer.from('{}'))).toBe('invalid');
    const other = `whsec_${randomBytes(24).toString('base64')}`;
    expect(checkSignature([other], headers, body)).toBe('invalid');
    const later = Math.floor(now.getTime() / 1000) + 600;
    expect(checkSignature([secret], headers, body, later)).toBe('invalid');
  });

  it('says so when it does not know the secret (a workflow created at an earlier start)', () => {
    expect(checkSignature([], headers, body)).toBe('not checked (secret unknown)');
  });
});

describe('npm start options', () => {
  it('write the sample data by default', () => {
    expect(startOptions([], {})).toEqual({ sampleData: true });
    expect(startOptions([], { SAMPLE_DATA: 'TRUE' })).toEqual({ sampleData: true });
  });

  it('start empty with --no-sample-data or SAMPLE_DATA=false', () => {
    expect(startOptions(['--no-sample-data'], {})).toEqual({ sampleData: false });
    expect(startOptions([], { SAMPLE_DATA: 'false' })).toEqual({ sampleData: false });
    expect(startOptions(['--no-sample-data'], { SAMPLE_DATA: 'true' })).toEqual({
      sampleData: false,
    });
  });

  it('refuse an unknown flag or a SAMPLE_DATA that is not true or false', () => {
    expect(() => startOptions(['--no-sampledata'], {})).toThrow(ConfigError);
    expect(() => startOptions(['--no-sampledata'], {})).toThrow('--no-sample-data');
    expect(() => startOptions([], { SAMPLE_DATA: 'no' })).toThrow(
      'SAMPLE_DATA: expected true or false',
    );
  });
});

describe('the banner', () => {
  const platform = (sampleData: SampleDataOutcome) =>
    banner({
      gatewayUrl: 'http://localhost:8080',
      services: [{ name: 'crm-api', listening: 'http://127.0.0.1:4001' }],
      database: 'embedded',
      eventBus: 'in-process',
      migratePush: 'npm run migrate:push -- --help',
      demo: {
        tenant: { id: 't', slug: 'demo', name: 'Demo Company' },
        user: { id: 'u', email: 'demo@example.com' },
        password: 'demo-password',
      },
      sampleData,
      echoUrl: 'http://127.0.0.1:4010',
    });
  const counts = { leads: 250, contacts: 120, deals: 40, forms: 1, submissions: 15, workflows: 1 };

  it('shows the counts and the MCP key at the start that created it', () => {
    const text = platform({ state: 'seeded', counts, mcpKey: 'crm_mcp_abc', testRunStatus: 'x' });
    expect(text).toContain('250 leads, 120 contacts, 40 deals, 1 form with 15 submissions');
    expect(text).toContain('MCP key   crm_mcp_abc');
    expect(text).toContain('http://127.0.0.1:4010');
  });

  it('says where to create a key at later starts, and when the sample data is off', () => {
    expect(platform({ state: 'already present' })).toContain('POST /api/mcp/keys');
    expect(platform({ state: 'off' })).toContain('Sample data  off');
    expect(platform({ state: 'off' })).not.toContain('crm_mcp_');
  });
});

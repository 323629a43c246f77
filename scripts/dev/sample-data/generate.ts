import { seededRandom, type Random } from './random';

/**
 * The demo tenant's sample CRM, generated the same way every time (a fixed seed): people at
 * made-up companies, with sources and statuses in believable proportions. Emails are on the
 * reserved `.example` top-level domain, so nothing here is anybody's real address.
 */
export const SAMPLE_SIZES = { leads: 240, contacts: 120, deals: 40, submissions: 15 } as const;

// prettier-ignore
const FIRST_NAMES = [
  'Ada', 'Alan', 'Amara', 'Ana', 'Arjun', 'Ben', 'Bianca', 'Carlos', 'Chen', 'Chloe', 'Daniel',
  'Diego', 'Elena', 'Emeka', 'Emma', 'Fatima', 'Felix', 'Grace', 'Hannah', 'Hiro', 'Ines',
  'Isaac', 'Jade', 'James', 'Jonas', 'Kai', 'Katarzyna', 'Layla', 'Leo', 'Lucia', 'Maya',
  'Mateo', 'Mei', 'Mohammed', 'Nadia', 'Noah', 'Olga', 'Omar', 'Priya', 'Rafael', 'Rosa',
  'Sam', 'Sara', 'Sofia', 'Tariq', 'Theo', 'Uma', 'Victor', 'Yara', 'Zoe',
] as const;

// prettier-ignore
const LAST_NAMES = [
  'Adeyemi', 'Andersson', 'Bauer', 'Becker', 'Chen', 'Costa', 'Dubois', 'Fernandez', 'Fischer',
  'Garcia', 'Haddad', 'Hansen', 'Ito', 'Jansen', 'Kim', 'Kowalski', 'Larsen', 'Lopez', 'Martin',
  'Moreau', 'Murphy', 'Nakamura', 'Novak', 'Okafor', 'Olsen', 'Patel', 'Petrov', 'Rossi',
  'Santos', 'Schmidt', 'Silva', 'Singh', 'Smith', 'Tanaka', 'Taylor', 'Vargas', 'Walsh',
  'Wang', 'Weber', 'Yilmaz',
] as const;

// prettier-ignore
const COMPANIES = [
  'Northwind Traders', 'Blue Harbor Logistics', 'Cedar & Stone', 'Brightpath Health',
  'Quantum Ledger', 'Greenfield Farms', 'Atlas Robotics', 'Lumen Studios', 'Harbor Bank',
  'Pinecrest Realty', 'Redwood Analytics', 'Silverline Telecom', 'Summit Outdoor',
  'Tidewater Energy', 'Urban Nest', 'Vertex Manufacturing', 'Willow Education', 'Zephyr Air',
  'Orchid Pharma', 'Ironclad Security', 'Maple Street Bakery', 'Nimbus Cloud', 'Oakridge Legal',
  'Polar Foods', 'Riverbend Hotels', 'Sable Fashion', 'Terra Architects', 'Helix Biotech',
  'Keystone Insurance', 'Mosaic Media',
] as const;

// prettier-ignore
const TITLES = [
  'CEO', 'CTO', 'Head of Sales', 'Marketing Manager', 'Operations Director', 'Procurement Lead',
  'IT Manager', 'Founder', 'VP Customer Success', 'Office Manager',
] as const;

/** As people type them on an import: the platform normalises them (docs/leads-and-deals.md). */
const LEAD_SOURCES = {
  Website: 30,
  Referral: 15,
  LinkedIn: 12,
  'Email campaign': 12,
  PPC: 10,
  'Trade show': 8,
  Partner: 7,
  'Cold call': 6,
} as const;

const LEAD_STATUSES = {
  new: 34,
  contacted: 24,
  qualified: 16,
  unqualified: 10,
  converted: 8,
  lost: 8,
} as const;

const DEAL_STAGES = {
  lead: 9,
  qualified: 8,
  proposal: 7,
  negotiation: 6,
  won: 6,
  lost: 4,
} as const;
export type DealStage = keyof typeof DEAL_STAGES;

const PRODUCTS = [
  'CRM seats',
  'Onboarding package',
  'Annual support plan',
  'Data migration',
  'Analytics add-on',
  'API access tier',
] as const;

export const FORM_INTERESTS = ['Demo', 'Pricing', 'Support', 'Partnership'] as const;

const FORM_MESSAGES = [
  'Could we book a demo for our sales team next week?',
  'What does the plan cost for 25 users?',
  'We are moving off spreadsheets and need help importing 5,000 contacts.',
  'Interested in reselling in our region.',
  'Does the API support webhooks for new leads?',
  'Please send the security questionnaire.',
] as const;

export interface SampleLead {
  email: string;
  first_name: string;
  last_name: string;
  phone?: string;
  company: string;
  source: string;
  status: keyof typeof LEAD_STATUSES;
}

export interface SampleContact {
  external_id: string;
  email: string;
  first_name: string;
  last_name: string;
  phone?: string;
  company: string;
  title: string;
}

export interface SampleDeal {
  title: string;
  value: string;
  currency: string;
  stage: DealStage;
  /** Whole days from the seeding day. */
  closesInDays: number;
  /** Index into the leads, or into the contacts, this deal is about. */
  leadIndex?: number;
  contactIndex?: number;
}

export interface SampleSubmission {
  email: string;
  first_name: string;
  last_name: string;
  company: string;
  interest: (typeof FORM_INTERESTS)[number];
  message: string;
  newsletter?: 'on';
}

export interface SampleData {
  leads: SampleLead[];
  contacts: SampleContact[];
  deals: SampleDeal[];
  submissions: SampleSubmission[];
}

const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

function phone(random: Random): string {
  return `+1 555 ${String(random.int(100, 999))} ${String(random.int(1000, 9999))}`;
}

/** `count` distinct people: a name pair is used once, so every email is distinct. */
function people(random: Random, count: number, taken: Set<string>) {
  const result: Array<{ first: string; last: string; company: string; email: string }> = [];
  while (result.length < count) {
    const first = random.pick(FIRST_NAMES);
    const last = random.pick(LAST_NAMES);
    const company = random.pick(COMPANIES);
    const email = `${slug(first)}.${slug(last)}@${slug(company)}.example`;
    if (taken.has(`${first} ${last}`)) continue;
    taken.add(`${first} ${last}`);
    result.push({ first, last, company, email });
  }
  return result;
}

export function generateSampleData(sizes = SAMPLE_SIZES, seed = 20_260_101): SampleData {
  const random = seededRandom(seed);
  const taken = new Set<string>();
  const leads: SampleLead[] = people(random, sizes.leads, taken).map((p) => ({
    email: p.email,
    first_name: p.first,
    last_name: p.last,
    ...(random.chance(0.6) ? { phone: phone(random) } : {}),
    company: p.company,
    source: random.weighted(LEAD_SOURCES),
    status: random.weighted(LEAD_STATUSES),
  }));
  const contacts: SampleContact[] = people(random, sizes.contacts, taken).map((p, i) => ({
    external_id: `sample-contact-${String(i + 1).padStart(3, '0')}`,
    email: p.email,
    first_name: p.first,
    last_name: p.last,
    ...(random.chance(0.7) ? { phone: phone(random) } : {}),
    company: p.company,
    title: random.pick(TITLES),
  }));
  // Deals follow the leads that went somewhere, and some existing customers (contacts).
  const promising = leads
    .map((lead, index) => ({ lead, index }))
    .filter(({ lead }) => ['qualified', 'converted', 'contacted'].includes(lead.status));
  const deals: SampleDeal[] = [];
  for (let i = 0; i < sizes.deals; i++) {
    const stage = random.weighted(DEAL_STAGES);
    const fromContact = i % 4 === 3;
    const lead = fromContact || promising.length === 0 ? undefined : random.pick(promising);
    const contactIndex = lead ? undefined : random.int(0, contacts.length - 1);
    const company = lead ? lead.lead.company : contacts[contactIndex ?? 0].company;
    const product = random.pick(PRODUCTS);
    const closed = stage === 'won' || stage === 'lost';
    deals.push({
      title: `${company}: ${product}`,
      value: `${random.int(12, 480) * 250}.00`,
      currency: random.chance(0.8) ? 'USD' : random.pick(['EUR', 'GBP']),
      stage,
      closesInDays: closed ? -random.int(3, 60) : random.int(7, 120),
      ...(lead ? { leadIndex: lead.index } : { contactIndex }),
    });
  }
  // A form brings new people and some who are already leads (their blanks get filled).
  const newcomers = people(random, sizes.submissions - Math.floor(sizes.submissions / 3), taken);
  const returning = Array.from({ length: Math.floor(sizes.submissions / 3) }, () =>
    random.pick(leads),
  );
  const submissions: SampleSubmission[] = [
    ...newcomers.map((p) => ({
      email: p.email,
      first_name: p.first,
      last_name: p.last,
      company: p.company,
    })),
    ...returning.map((l) => ({
      email: l.email,
      first_name: l.first_name,
      last_name: l.last_name,
      company: l.company,
    })),
  ].map((person) => ({
    ...person,
    interest: random.pick(FORM_INTERESTS),
    message: random.pick(FORM_MESSAGES),
    ...(random.chance(0.5) ? { newsletter: 'on' as const } : {}),
  }));
  return { leads, contacts, deals, submissions };
}

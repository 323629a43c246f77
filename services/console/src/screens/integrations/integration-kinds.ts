import type { IntegrationPath } from '../../api/integrations';

/** One input of a connect or change form. */
export interface FieldSpec {
  name: string;
  label: string;
  hint?: string;
  required?: boolean;
  /** A select of [value, text]; the first is the default. */
  options?: ReadonlyArray<readonly [string, string]>;
  /** A write-only secret: a password input, never filled from the server. */
  secret?: boolean;
}

/** One kind of integration the API connects (docs/integrations.md, Routes). */
export interface IntegrationKind {
  path: IntegrationPath;
  title: string;
  /** What one is called in buttons and messages: "storefront connection". */
  noun: string;
  /** The key the API answers one row under: `data.<rowKey>`. */
  rowKey: 'connection' | 'account' | 'number';
  /** The row's identifying column, shown first. */
  identifier: { column: string; label: string };
  /** Another column worth a table column (platform, provider). */
  extra?: { column: string; label: string };
  create: FieldSpec[];
  /** What PATCH changes; none: a row is only connected and removed. */
  change?: FieldSpec[];
  /** Whether the secret may be removed (PATCH webhookSecret: null). */
  secretRemovable?: boolean;
  /** Identifier proof by a delivery to `verificationUrl` (messaging, network, telephony). */
  proof: 'verification-url' | 'own-secret' | 'none';
}

const NAME: FieldSpec = { name: 'name', label: 'Name', hint: 'Optional, up to 200 characters' };

export const INTEGRATION_KINDS: IntegrationKind[] = [
  {
    path: 'storefront-connections',
    title: 'Storefront connections',
    noun: 'storefront connection',
    rowKey: 'connection',
    identifier: { column: 'shop_identifier', label: 'Shop' },
    extra: { column: 'platform', label: 'Platform' },
    create: [
      {
        name: 'platform',
        label: 'Platform',
        options: [
          ['storefront_a', 'Storefront A (shop domain)'],
          ['storefront_b', 'Storefront B (shop URL)'],
        ],
      },
      {
        name: 'shop_identifier',
        label: 'Shop',
        required: true,
        hint: 'A: the shop domain (my-shop.example.com); B: the shop URL (https://shop.example.com)',
      },
      NAME,
      {
        name: 'webhookSecret',
        label: 'Webhook secret',
        secret: true,
        hint: "The signing secret from the shop's webhook settings. Without one, deliveries are accepted unverified only while no other workspace connects the shop.",
      },
    ],
    change: [
      NAME,
      {
        name: 'webhookSecret',
        label: 'New webhook secret',
        secret: true,
        hint: 'Leave empty to keep the current one',
      },
    ],
    secretRemovable: true,
    proof: 'own-secret',
  },
  {
    path: 'payment-connections',
    title: 'Payment connections',
    noun: 'payment connection',
    rowKey: 'connection',
    identifier: { column: 'provider', label: 'Provider' },
    create: [
      {
        name: 'provider',
        label: 'Provider',
        options: [
          ['stripe', 'Stripe'],
          ['razorpay', 'Razorpay'],
          ['paddle', 'Paddle'],
          ['lemonsqueezy', 'Lemon Squeezy'],
        ],
      },
      NAME,
      {
        name: 'webhookSecret',
        label: 'Webhook secret',
        secret: true,
        required: true,
        hint: "The signing secret from the provider's webhook settings",
      },
    ],
    change: [
      NAME,
      {
        name: 'webhookSecret',
        label: 'New webhook secret',
        secret: true,
        hint: 'Leave empty to keep the current one',
      },
    ],
    proof: 'none',
  },
  {
    path: 'network-accounts',
    title: 'Network accounts',
    noun: 'network account',
    rowKey: 'account',
    identifier: { column: 'external_account_id', label: 'Account id' },
    create: [
      {
        name: 'external_account_id',
        label: 'Account id',
        required: true,
        hint: "The partner's account id, no spaces",
      },
      NAME,
    ],
    proof: 'verification-url',
  },
  {
    path: 'messaging-accounts',
    title: 'Messaging numbers',
    noun: 'messaging number',
    rowKey: 'account',
    identifier: { column: 'phone_number_id', label: 'Phone number id' },
    extra: { column: 'display_phone_number', label: 'Number' },
    create: [
      {
        name: 'phone_number_id',
        label: 'Phone number id',
        required: true,
        hint: "The business number's id at the messaging provider",
      },
      {
        name: 'display_phone_number',
        label: 'Display number',
        hint: 'Optional, e.g. +1 415 555 0100',
      },
      NAME,
    ],
    proof: 'verification-url',
  },
  {
    path: 'telephony-numbers',
    title: 'Telephony numbers',
    noun: 'telephony number',
    rowKey: 'number',
    identifier: { column: 'phone_number', label: 'Number' },
    create: [
      {
        name: 'phone_number',
        label: 'Phone number',
        required: true,
        hint: 'E.164, e.g. +14155550100',
      },
      NAME,
    ],
    proof: 'verification-url',
  },
];

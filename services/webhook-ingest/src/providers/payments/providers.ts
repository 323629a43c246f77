import { PAYMENT_PROVIDERS } from '@crm/shared/db';
import { lemonsqueezy } from './lemonsqueezy';
import { paddle } from './paddle';
import type { PaymentProvider, PaymentProviderModule } from './payment-event';
import { razorpay } from './razorpay';
import { stripe } from './stripe';

/** The `?provider=` values the payments receiver accepts, one module each. */
export const PAYMENT_PROVIDER_MODULES: Record<PaymentProvider, PaymentProviderModule> = {
  stripe,
  razorpay,
  paddle,
  lemonsqueezy,
};

export function isPaymentProvider(value: unknown): value is PaymentProvider {
  return typeof value === 'string' && (PAYMENT_PROVIDERS as readonly string[]).includes(value);
}

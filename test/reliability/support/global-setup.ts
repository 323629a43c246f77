import globalSetup from '../../../scripts/test/global-setup';
import { clearFigures } from './figures';

/** The test tiers' setup (a fresh migrated database, NATS found), and an empty figures file. */
export default async function reliabilitySetup(): Promise<void> {
  clearFigures();
  await globalSetup();
}

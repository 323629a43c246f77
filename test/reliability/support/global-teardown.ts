import globalTeardown from '../../../scripts/test/global-teardown';
import { clearFigures, figuresTable, readFigures } from './figures';

/** Drops the run's databases and ends the run with the table of every figure the tests recorded. */
export default async function reliabilityTeardown(): Promise<void> {
  await globalTeardown();
  // In item order (1, 3, 4, 5), whatever order jest ran the files in.
  const rows = readFigures().sort((a, b) => a.test.localeCompare(b.test));
  process.stdout.write(`\nReliability figures (${rows.length}):\n${figuresTable(rows)}\n`);
  clearFigures();
}

import { appendFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/*
 * Each test file runs in its own module registry, so the figures go through a file: every
 * test appends its rows, the global teardown prints them as one table at the end of the run.
 */
export const FIGURES_FILE =
  process.env.RELIABILITY_FIGURES_FILE ??
  join(tmpdir(), `reliability-figures-${process.pid}.jsonl`);

export interface Figure {
  test: string;
  figure: string;
  value: string | number;
}

/** Records one figure and prints it at once, so a failing run still shows what it measured. */
export function recordFigure(test: string, figure: string, value: string | number): void {
  const row: Figure = { test, figure, value };
  appendFileSync(FIGURES_FILE, `${JSON.stringify(row)}\n`);
  process.stdout.write(`[reliability] ${test}: ${figure} = ${value}\n`);
}

export function readFigures(): Figure[] {
  if (!existsSync(FIGURES_FILE)) return [];
  return readFileSync(FIGURES_FILE, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Figure);
}

export function clearFigures(): void {
  rmSync(FIGURES_FILE, { force: true });
}

export function figuresTable(rows: Figure[]): string {
  const widths = [4, 6, 5];
  const cells = rows.map((r) => [r.test, r.figure, String(r.value)]);
  for (const row of [['test', 'figure', 'value'], ...cells]) {
    row.forEach((cell, i) => (widths[i] = Math.max(widths[i], cell.length)));
  }
  const line = (row: string[]) => `| ${row.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [
    line(['test', 'figure', 'value']),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...cells.map(line),
  ].join('\n');
}

/** How many answers had each status, for a fuzzing test's figures (`200: 52, 400: 344`). */
export class StatusTally {
  private readonly counts = new Map<number, number>();

  add(status: number): void {
    this.counts.set(status, (this.counts.get(status) ?? 0) + 1);
  }

  toString(): string {
    return [...this.counts]
      .sort(([a], [b]) => a - b)
      .map(([status, n]) => `${status}: ${n}`)
      .join(', ');
  }
}

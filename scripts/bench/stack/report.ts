import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem, type as osType, release } from 'node:os';
import { join } from 'node:path';

/** One line of the table: the platform's figure beside its bare baseline of the same run. */
export interface Row {
  scenario: string;
  figure: number;
  baseline?: number;
  unit: string;
  /** figure / baseline, when there is a baseline. */
  ratio?: number;
  target: string;
  holds: boolean;
}

export function ratioRow(
  scenario: string,
  figure: number,
  baseline: number,
  unit: string,
  target: number,
): Row {
  const ratio = Number((figure / baseline).toFixed(2));
  return {
    scenario,
    figure,
    baseline,
    unit,
    ratio,
    target: `>= ${target}`,
    holds: ratio >= target,
  };
}

export function atLeastRow(scenario: string, figure: number, unit: string, target: number): Row {
  return { scenario, figure, unit, target: `>= ${target}`, holds: figure >= target };
}

export function atMostRow(scenario: string, figure: number, unit: string, target: number): Row {
  return { scenario, figure, unit, target: `<= ${target}`, holds: figure <= target };
}

export function machine() {
  return {
    os: `${osType()} ${release()}`,
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
  };
}

export function printTable(rows: Row[]): string {
  const cells = rows.map((r) => [
    r.scenario,
    `${r.figure} ${r.unit}`,
    r.baseline === undefined ? '-' : `${r.baseline} ${r.unit}`,
    r.ratio === undefined ? '-' : String(r.ratio),
    r.target,
    r.holds ? 'yes' : 'NO',
  ]);
  const header = ['scenario', 'figure', 'baseline (same run)', 'ratio', 'target', 'holds'];
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) => `| ${c.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

/** bench/results/<date>.json: the table, the raw runs and the machine. */
export function writeResults(kind: string, rows: Row[], details: unknown): string {
  const dir = join(__dirname, '..', '..', '..', 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${new Date().toISOString().slice(0, 10)}-${kind}.json`);
  writeFileSync(
    file,
    `${JSON.stringify({ at: new Date().toISOString(), machine: machine(), rows, details }, null, 2)}\n`,
  );
  return file;
}

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import * as ts from 'typescript';

/*
 * The source files of every package (services/<name>/src, libs/<name>/src) and the imports
 * between them, for the checks that hold in every package: arrows point one way, SQL lives in
 * repositories, a file's name tells it apart. Paths are relative to the repository root.
 */

export const ROOT = resolve(__dirname, '../../../..');

/** services/gateway/src, libs/shared/src, ...: every package's source root. */
export function packageSourceRoots(): string[] {
  return ['services', 'libs'].flatMap((group) =>
    readdirSync(join(ROOT, group))
      .map((name) => `${group}/${name}/src`)
      .filter((src) => isDirectory(join(ROOT, src))),
  );
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

const SOURCE = /\.tsx?$/;

/** The .ts/.tsx files under a package's source root (declarations aside), root-relative. */
export function sourceFilesOf(src: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(ROOT, dir)).flatMap((name) => {
      const path = `${dir}/${name}`;
      if (isDirectory(join(ROOT, path))) return walk(path);
      return SOURCE.test(name) && !name.endsWith('.d.ts') ? [path] : [];
    });
  return walk(src);
}

export const readSource = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** `services/migrate/src`: the package a file belongs to. */
export const packageOf = (file: string) => file.split('/').slice(0, 3).join('/');

/** The workspace aliases (as jest's moduleNameMapper and the packages' exports resolve them). */
const ALIASES: Array<[RegExp, string]> = [
  [/^@crm\/shared\/(.+)$/, 'libs/shared/src/$1'],
  [/^@crm\/records$/, 'libs/records/src'],
  [/^@crm\/test-kit$/, 'libs/test-kit/src'],
];

/**
 * The source file a specifier names (`./x` -> x.ts, x.tsx or x/index.ts), undefined for a
 * package outside the repository or a non-source file (a stylesheet); throws when a relative
 * or aliased import names nothing, so a typo cannot hide an edge.
 */
export function resolveImport(from: string, specifier: string): string | undefined {
  let base: string | undefined;
  if (specifier.startsWith('.')) base = relative(ROOT, resolve(ROOT, dirname(from), specifier));
  for (const [pattern, target] of ALIASES) {
    if (pattern.test(specifier)) base = specifier.replace(pattern, target);
  }
  if (base === undefined) return undefined;
  if (!SOURCE.test(base) && isFile(join(ROOT, base))) return undefined;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`]) {
    if (SOURCE.test(candidate) && isFile(join(ROOT, candidate))) return candidate;
  }
  throw new Error(`${from}: cannot resolve ${specifier}`);
}

export type Graph = Map<string, Set<string>>;

/** Every import, `import type`, re-export and dynamic import between the given files. */
export function importGraph(files: readonly string[]): Graph {
  const graph: Graph = new Map();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readSource(file), true, true);
    const targets = importedFiles
      .map((imported) => resolveImport(file, imported.fileName))
      .filter((target): target is string => target !== undefined);
    graph.set(file, new Set(targets));
  }
  return graph;
}

/**
 * Each cycle once, as its members sorted (Tarjan's strongly connected components), the cycles
 * sorted by their first member.
 */
export function findCycles(graph: Graph): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || graph.get(node)?.has(node)) cycles.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles.sort((a, b) => a[0].localeCompare(b[0]));
}

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import * as ts from 'typescript';

/*
 * libs/shared is layered: a module imports only modules of lower layers, never one beside it or
 * above it, so the library has no import cycle and the database layer, say, cannot come to
 * depend on HTTP. `testing` is outside the layers: it may use anything, and nothing in the
 * library imports it. A new module must be given a layer here.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['crypto', 'config', 'logger', 'telemetry', 'errors', 'routes'],
  ['db'],
  ['events'],
  // The workflow definition's rules (the automation service and the console's builder).
  ['automation', 'identity', 'http'],
  ['pagination', 'inbound'],
  ['service'],
  // Build-time only (the OpenAPI generator): nothing at run time imports it.
  ['openapi'],
];
const OUTSIDE = 'testing';

const SRC = resolve(__dirname, '..', 'src');

type Graph = Map<string, Set<string>>;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** The file a specifier names: `./x` -> x.ts or x/index.ts; `@crm/shared/m` -> m/index.ts. */
function resolveImport(from: string, specifier: string): string | undefined {
  let base: string;
  if (specifier.startsWith('.')) base = resolve(dirname(from), specifier);
  else if (specifier.startsWith('@crm/shared/')) base = join(SRC, specifier.slice(12));
  else return undefined;
  for (const candidate of [`${base}.ts`, join(base, 'index.ts')]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not this one
    }
  }
  throw new Error(`${relative(SRC, from)}: cannot resolve ${specifier}`);
}

/** Every import, `import type`, re-export and dynamic import between the library's files. */
function importGraph(): Graph {
  const graph: Graph = new Map();
  for (const file of sourceFiles(SRC)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map((imported) => resolveImport(file, imported.fileName))
      .filter((target): target is string => target !== undefined)
      .map((target) => relative(SRC, target));
    graph.set(relative(SRC, file), new Set(targets));
  }
  return graph;
}

/** Each cycle once, as the path of files that closes it (Tarjan's strongly connected components). */
function findCycles(graph: Graph): string[][] {
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
  return cycles;
}

const moduleOf = (file: string) => file.split('/')[0];
const layerOf = (module: string) => LAYERS.findIndex((layer) => layer.includes(module));

/** `a.ts -> b.ts (m -> n)` for every import that does not point down a layer. */
function forbiddenImports(graph: Graph): string[] {
  const found: string[] = [];
  for (const [file, targets] of graph) {
    const from = moduleOf(file);
    for (const target of targets) {
      const to = moduleOf(target);
      if (from === to || from === OUTSIDE) continue;
      const allowed = to !== OUTSIDE && layerOf(to) >= 0 && layerOf(to) < layerOf(from);
      if (!allowed) found.push(`${file} -> ${target} (${from} -> ${to})`);
    }
  }
  return found;
}

describe('libs/shared layers point one way', () => {
  const graph = importGraph();

  it('reads the real library (sanity: the files and imports the rules run on)', () => {
    expect(graph.get('events/relay.ts')).toContain('db/tenant-scope.ts');
    expect(graph.get('service/index.ts')).toContain('service/run-standalone.ts');
  });

  it('gives every module a layer', () => {
    const modules = new Set([...graph.keys()].map(moduleOf));
    const unplaced = [...modules].filter((m) => m !== OUTSIDE && layerOf(m) < 0);
    expect(unplaced).toEqual([]);
  });

  it('has no import cycle between files', () => {
    expect(findCycles(graph)).toEqual([]);
  });

  it('imports only from lower layers (db not from http or identity, nothing from testing)', () => {
    expect(forbiddenImports(graph)).toEqual([]);
  });

  it('would catch a cycle and an import pointing up (the checks themselves)', () => {
    const bad: Graph = new Map([
      ['service/serve.ts', new Set(['service/run-standalone.ts'])],
      ['service/run-standalone.ts', new Set(['service/serve.ts'])],
      ['db/tenant-scope.ts', new Set(['http/errors.ts', 'testing/fixtures.ts'])],
      ['http/errors.ts', new Set<string>()],
    ]);
    expect(findCycles(bad)).toEqual([['service/run-standalone.ts', 'service/serve.ts']]);
    expect(forbiddenImports(bad)).toEqual([
      'db/tenant-scope.ts -> http/errors.ts (db -> http)',
      'db/tenant-scope.ts -> testing/fixtures.ts (db -> testing)',
    ]);
  });
});

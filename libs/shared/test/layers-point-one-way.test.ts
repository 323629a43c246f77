import {
  findCycles,
  importGraph,
  packageSourceRoots,
  sourceFilesOf,
  type Graph,
} from './support/package-sources';

/*
 * libs/shared is layered: a module imports only modules of lower layers, never one beside it or
 * above it, so the library has no import cycle and the database layer, say, cannot come to
 * depend on HTTP. `testing` is outside the layers: it may use anything, and nothing in the
 * library imports it. A new module must be given a layer here.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['crypto', 'config', 'logger', 'telemetry', 'errors', 'routes', 'outbound'],
  ['db', 'mcp-access'],
  ['events'],
  // The workflow definition's rules (the automation service and the console's builder).
  ['automation', 'identity', 'http'],
  ['pagination', 'inbound'],
  ['service'],
  // Build-time only (the OpenAPI generator): nothing at run time imports it.
  ['openapi'],
];
const OUTSIDE = 'testing';

const SHARED = 'libs/shared/src/';

/** The import graph of the whole repository's packages. */
const everyPackage = importGraph(packageSourceRoots().flatMap(sourceFilesOf));

/** libs/shared's own files and the imports between them, by path inside its src. */
function libraryGraph(): Graph {
  const graph: Graph = new Map();
  for (const [file, targets] of everyPackage) {
    if (!file.startsWith(SHARED)) continue;
    const inside = [...targets].filter((t) => t.startsWith(SHARED));
    graph.set(file.slice(SHARED.length), new Set(inside.map((t) => t.slice(SHARED.length))));
  }
  return graph;
}

/*
 * Every package: no import cycle between its files, and its feature folders (the first folder
 * under src: runs/, engine/, ingest/) point one way too, so a feature's routes can use the
 * engine or a repository but nothing they use reaches back. Files directly in src (app.ts,
 * main.ts, config.ts) are nodes of their own.
 */

/** `services/automation/src/runs/` for a file in a feature folder, else the file itself. */
function featureFolderOf(file: string): string {
  const [group, name, src, first, ...rest] = file.split('/');
  return rest.length > 0 ? `${group}/${name}/${src}/${first}/` : file;
}

/** The imports between feature folders (an import inside one folder is not an edge). */
function folderGraph(files: Graph): Graph {
  const graph: Graph = new Map();
  for (const [file, targets] of files) {
    const from = featureFolderOf(file);
    const edges = graph.get(from) ?? new Set<string>();
    for (const target of targets)
      if (featureFolderOf(target) !== from) edges.add(featureFolderOf(target));
    graph.set(from, edges);
  }
  return graph;
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
  const graph = libraryGraph();

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

describe('every package points one way', () => {
  it('reads every package (sanity: the files and imports the checks run on)', () => {
    expect(everyPackage.get('services/automation/src/runs/runs.routes.ts')).toContain(
      'services/automation/src/runs/run-starter.ts',
    );
    expect(everyPackage.get('services/console/src/routes.tsx')?.size).toBeGreaterThan(0);
    expect(everyPackage.get('services/migrate/src/ingest/ingest.routes.ts')).toContain(
      'libs/shared/src/http/index.ts',
    );
  });

  it('has no import cycle between files in any package', () => {
    expect(findCycles(everyPackage)).toEqual([]);
  });

  it('has no loop between the feature folders of any package', () => {
    expect(findCycles(folderGraph(everyPackage))).toEqual([]);
  });

  it('would catch a loop between feature folders that no file cycle shows', () => {
    const files: Graph = new Map([
      ['services/x/src/runs/runs.routes.ts', new Set(['services/x/src/engine/engine.ts'])],
      ['services/x/src/engine/engine.ts', new Set(['services/x/src/runs/runs.repository.ts'])],
      ['services/x/src/runs/runs.repository.ts', new Set<string>()],
      ['services/x/src/app.ts', new Set(['services/x/src/runs/runs.routes.ts'])],
    ]);
    expect(findCycles(files)).toEqual([]);
    expect(findCycles(folderGraph(files))).toEqual([
      ['services/x/src/engine/', 'services/x/src/runs/'],
    ]);
  });
});

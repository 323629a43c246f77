import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configVariables } from '../docs/config-variables';
import { REFERENCE_PATH, renderConfigReference } from '../docs/generate-config-reference';
import { ALSO_READ_BY, TOOL_VARIABLES } from '../docs/tool-variables';

/*
 * docs/configuration.md is generated from the services' config schemas and the variables the
 * tools read (scripts/docs/tool-variables.ts): the committed file must be what
 * `npm run docs:config` writes now, and the tools' list must match the code that reads them.
 */
const ROOT = join(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

describe('the configuration reference (docs/configuration.md)', () => {
  it('is what `npm run docs:config` generates (run it after changing a config schema)', () => {
    expect(read('docs/configuration.md')).toBe(renderConfigReference());
    expect(REFERENCE_PATH).toBe(join(ROOT, 'docs', 'configuration.md'));
  });

  it('keeps every line short enough to read in a terminal', () => {
    const long = renderConfigReference()
      .split('\n')
      .filter((line) => line.length > 120);
    expect(long).toEqual([]);
  });

  it('is laid out as prettier lays it out, so `npm run lint` leaves it alone', () => {
    const prettier = join(ROOT, 'node_modules', 'prettier', 'bin', 'prettier.cjs');
    const formatted = execFileSync(process.execPath, [prettier, '--stdin-filepath', 'x.md'], {
      input: renderConfigReference(),
      encoding: 'utf8',
    });
    expect(renderConfigReference()).toBe(formatted);
  });

  it('names every variable once, with a default and a reader', () => {
    const names = configVariables().map((v) => v.name);
    expect(new Set(names).size).toBe(names.length);
    for (const variable of configVariables()) {
      expect({ name: variable.name, readBy: variable.readBy.length > 0 }).toEqual({
        name: variable.name,
        readBy: true,
      });
      expect(variable.default).not.toBe('');
    }
  });

  it('lists only tool variables that the files it names still read', () => {
    const claims = [
      ...TOOL_VARIABLES.map((v) => [v.name, v.sources] as const),
      ...Object.entries(ALSO_READ_BY).map(([name, also]) => [name, also.sources] as const),
    ];
    for (const [name, sources] of claims) {
      for (const source of sources) {
        expect({ name, source, reads: read(source).includes(name) }).toEqual({
          name,
          source,
          reads: true,
        });
      }
    }
  });

  it("documents every variable npm start's own code (start-all.ts, scripts/dev) reads from the environment", () => {
    const files = [
      'scripts/start-all.ts',
      ...readdirSync(join(ROOT, 'scripts/dev'), { recursive: true, encoding: 'utf8' })
        .filter((file) => file.endsWith('.ts'))
        .map((file) => `scripts/dev/${file}`),
    ];
    const documented = new Set(configVariables().map((v) => v.name));
    const readByCode = files.flatMap((file) =>
      [...read(file).matchAll(/(?:process\.env|\benv)\.([A-Z][A-Z0-9_]+)/g)].map((m) => m[1]),
    );
    expect(readByCode.length).toBeGreaterThan(3);
    expect(readByCode.filter((name) => !documented.has(name))).toEqual([]);
  });
});

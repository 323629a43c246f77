import { packageOf, packageSourceRoots, sourceFilesOf } from './support/package-sources';

/*
 * No two source files of one package share a name: a name in a stack trace, a log line, an
 * editor tab or a review says which file it is without its folder. A file is named after what
 * it holds (`lead-writer.ts`, `event-envelope.ts`), not after its role in its folder
 * (`handle.ts`, `envelope.ts`).
 */

/** A module's entry point is named by its folder (`@crm/shared/http` is http/index.ts). */
const ENTRY_POINT = 'index.ts';

const baseName = (file: string) => file.slice(file.lastIndexOf('/') + 1);

/** `package: name (file, file)` for each name two or more files of one package share. */
export function sharedNames(files: readonly string[]): Map<string, string[]> {
  const byName = new Map<string, string[]>();
  for (const file of files) {
    const key = `${packageOf(file)}: ${baseName(file)}`;
    byName.set(key, [...(byName.get(key) ?? []), file]);
  }
  return new Map([...byName].filter(([, holders]) => holders.length > 1));
}

describe('file names tell the files of a package apart', () => {
  const shared = sharedNames(packageSourceRoots().flatMap(sourceFilesOf));

  it('no two source files of one package share a name', () => {
    const clashes = [...shared]
      .filter(([key]) => !key.endsWith(`: ${ENTRY_POINT}`))
      .map(([key, holders]) => `${key} (${holders.join(', ')})`);
    expect(clashes).toEqual([]);
  });

  it('would catch two files of one package with one name, not two packages', () => {
    const clashes = sharedNames([
      'services/a/src/x/handle.ts',
      'services/a/src/y/handle.ts',
      'services/b/src/handle.ts',
      'services/a/src/app.ts',
      'services/b/src/app.ts',
    ]);
    expect([...clashes.keys()]).toEqual(['services/a/src: handle.ts']);
  });
});

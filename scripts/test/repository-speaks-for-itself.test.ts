import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/*
 * The repository speaks for itself: the product specification, the architecture document and
 * the issue tracker the requirements came from are not part of it, so no file may send a reader
 * there. Where a rule is fixed by the specification, the text says "(specified)" and states the
 * rule itself. This test reads every tracked text file and names each file:line that still
 * points at one of those documents by file name or at a tracker issue by number.
 *
 * The patterns are built from pieces so that this file does not match itself. Nothing is
 * allow-listed: a hit is fixed where it is, not excused here.
 */

const ROOT = resolve(__dirname, '../..');

/** The specification's and the design document's file names, as a word. */
const DOCUMENT_REFERENCE = new RegExp(`\\b(?:${'SP' + 'EC'}|${'DES' + 'IGN'})\\.md\\b`);
/**
 * A tracker pointer: the word issue or issues, then a number, with or without a `#` (the first
 * test below shows the forms). The number is what makes it a pointer: zod's `issues: [...]`,
 * "a known issue" or "GitHub issue" without a number are ordinary words.
 */
const ISSUE_REFERENCE = new RegExp(`\\b[Ii]${'ssue'}s? #?\\d+\\b`);

const SKIPPED_DIRECTORIES = new Set(['node_modules', '.git', 'dist', 'coverage', '.data']);
const SKIPPED_FILES = new Set(['package-lock.json', 'yarn.lock', 'pnpm-lock.yaml']);

/** Tracked files (git ls-files); without git, every file under the root but build output. */
function repositoryFiles(): string[] {
  try {
    const out = execFileSync('git', ['ls-files', '-z'], {
      cwd: ROOT,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return out.split('\0').filter(Boolean);
  } catch {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.isDirectory()) {
          if (!SKIPPED_DIRECTORIES.has(entry.name)) walk(join(dir, entry.name));
        } else if (entry.isFile()) {
          files.push(relative(ROOT, join(dir, entry.name)));
        }
      }
    };
    walk(ROOT);
    return files;
  }
}

function isSkipped(file: string): boolean {
  const parts = file.split('/');
  const name = parts[parts.length - 1];
  return SKIPPED_FILES.has(name) || parts.some((part) => SKIPPED_DIRECTORIES.has(part));
}

/** Text, or undefined for a binary (a NUL byte in its first 8 KiB) or a file gone from disk. */
function readText(file: string): string | undefined {
  const path = join(ROOT, file);
  if (!existsSync(path) || !statSync(path).isFile()) return undefined;
  const bytes = readFileSync(path);
  if (bytes.subarray(0, 8192).includes(0)) return undefined;
  return bytes.toString('utf8');
}

/** `file:line: text` for each line matching either pattern (a long line: around the match). */
export function findReferences(file: string, text: string): string[] {
  const hits: string[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    const match = DOCUMENT_REFERENCE.exec(line) ?? ISSUE_REFERENCE.exec(line);
    if (!match) return;
    const shown = line.trim();
    const at = shown.indexOf(match[0]);
    const excerpt =
      shown.length <= 160
        ? shown
        : `${at > 60 ? '...' : ''}${shown.slice(Math.max(0, at - 60), at + 100)}...`;
    hits.push(`${file}:${index + 1}: ${excerpt}`);
  });
  return hits;
}

describe('the repository speaks for itself', () => {
  it('the patterns catch document and tracker pointers, and only those', () => {
    const flagged = [
      `see ${'SP' + 'EC'}.md (Errors)`,
      `the proxy table of ${'DES' + 'IGN'}.md`,
      `// ${'Iss' + 'ue'} 9, items 1 and 2: adding a member`,
      `(${'iss' + 'ue'} 15, item 3)`,
      `${'iss' + 'ues'} 3 and 5`,
      `${'Iss' + 'ue'} #12`,
    ];
    const ordinary = [
      'expect(res.body.details.issues: [{ path: ["email"] }])',
      'const issues = result.error.issues;',
      'a known issue with the driver',
      'report it as a GitHub issue',
      'SPECIFIED, DESIGNED, respec.mdx',
      'tissue 9',
    ];
    expect(flagged.filter((line) => findReferences('x', line).length === 0)).toEqual([]);
    expect(ordinary.filter((line) => findReferences('x', line).length > 0)).toEqual([]);
  });

  it('no tracked file points at the specification, the design document or a tracker issue', () => {
    const hits = repositoryFiles()
      .filter((file) => !isSkipped(file))
      .flatMap((file) => {
        const text = readText(file);
        return text === undefined ? [] : findReferences(file, text);
      });
    if (hits.length > 0) {
      throw new Error(
        `${hits.length} line(s) send the reader to a document or tracker they do not have. ` +
          'State the rule itself (write "(specified)" where the specification fixes it) ' +
          'or drop the pointer:\n' +
          hits.join('\n'),
      );
    }
  });
});

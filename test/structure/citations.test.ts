// A comment stays true and findable from the code alone: it cites a design document in docs/ by its section's title,
// never a working session, a date, an issue of a tracker that is not in the repository, or the journal the project
// kept while it was built (its archive in docs/), which says how things were, not how they are.
import * as fs from 'fs';
import * as path from 'path';
import { headingsOf, markdownFiles } from '../support/documents';
import { filesUnder, root } from '../support/files';

const CODE = /\.(ts|js|mjs|cjs|c|cpp|cu|cuh|h|inc)$/;
const codeFiles = (): string[] => ['native', 'lib', 'test', 'examples'].flatMap((dir) => filesUnder(dir, CODE));
// The Markdown that ships: the front page, the changelog and the design documents (not the archive).
const shippedDocs = (): string[] => markdownFiles().filter((f) => !f.startsWith(path.join('docs', 'archive')));

/** Each line of `files` that matches `pattern`, as file:line. */
function linesMatching(files: string[], pattern: RegExp): string[] {
  return files.flatMap((file) =>
    fs.readFileSync(path.join(root, file), 'utf8').split('\n').flatMap((line, i) => (pattern.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
  );
}

test('no source, test, example or shipped doc cites a working session or an issue number', () => {
  const files = [...codeFiles(), ...shippedDocs()];
  expect(files.length).toBeGreaterThan(150);
  expect(linesMatching(files, /\b[Ii]ssues? #?\d+|\b[Ss]essions? \d+/)).toEqual([]);
});

test('no source, test or example names a date, the journal, or the notes file it replaced', () => {
  expect(linesMatching(codeFiles(), /\b20\d\d-\d\d-\d\d\b|docs\/archive|NOTES\.md/)).toEqual([]);
});

test('every design document the code cites exists, and so does every section it names', () => {
  const cited: string[] = [];
  const wrong: string[] = [];
  for (const file of [...codeFiles(), ...filesUnder('bench', /\.(js|cu|cuh|h|sh)$/), ...filesUnder('scripts', /\.(js|sh)$/)]) {
    // A citation may run over a comment's line break.
    const text = fs.readFileSync(path.join(root, file), 'utf8').replace(/\n\s*(\/\/|\*|#)\s*/g, ' ');
    for (const [, doc, section] of text.matchAll(/docs\/([\w/-]+\.md)(?:,\s*(?:sections?\s+)?|\s*\()(?:"([^"]+)")?/g)) {
      cited.push(`${doc} ${section ?? ''}`);
      const target = path.join('docs', doc);
      if (!fs.existsSync(path.join(root, target))) wrong.push(`${file}: ${target} does not exist`);
      else if (section !== undefined && !headingsOf(target).has(section)) wrong.push(`${file}: ${target} has no section "${section}"`);
    }
  }
  expect(cited.length).toBeGreaterThan(80);
  expect(wrong).toEqual([]);
});

test("the changelog's first version is the package's", () => {
  const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
  expect(/^## (.+)$/m.exec(fs.readFileSync(path.join(root, 'CHANGELOG.md'), 'utf8'))?.[1]).toBe(version);
});

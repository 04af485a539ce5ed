// The documents' relative links resolve, and so do the paths they name in code font: every link in README.md,
// CHANGELOG.md and docs/ names a file of the repository (and a heading of it, where it names one); every link in a
// file the package ships names a file the package ships, so that the README and the design documents read the same in
// node_modules as on the repository; and a path such as `bench/kernels.cu` names a file that is there.
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { anchorsOf, markdownFiles } from '../support/documents';
import { root } from '../support/files';

interface Link {
  from: string;
  target: string; // relative to the root
  anchor?: string;
}

/** The relative links of a Markdown file (not http:, mailto: or a bare #anchor's own file), outside code. */
function linksOf(file: string): Link[] {
  const text = fs.readFileSync(path.join(root, file), 'utf8').replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].flatMap(([, href]) => {
    if (/^[a-z]+:/i.test(href)) return [];
    const [target, anchor] = href.split('#');
    return [{ from: file, target: target === '' ? file : path.normalize(path.join(path.dirname(file), target)), anchor: anchor && decodeURIComponent(anchor) }];
  });
}

const links = markdownFiles().flatMap(linksOf);

test('every relative link in README.md, CHANGELOG.md and docs/ resolves in the repository', () => {
  expect(links.length).toBeGreaterThan(40);
  const broken = links.flatMap(({ from, target, anchor }) => {
    const file = path.join(root, target);
    if (!fs.existsSync(file)) return [`${from} → ${target}: no such file`];
    if (anchor !== undefined && (!target.endsWith('.md') || !anchorsOf(target).has(anchor))) return [`${from} → ${target}#${anchor}: no such heading`];
    return [];
  });
  expect(broken).toEqual([]);
});

test('every relative link in a shipped document names a shipped file', () => {
  // The files npm packs, as the package's "files" list selects them (no build runs: --ignore-scripts).
  const packed = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' })) as { files: { path: string }[] }[];
  const shipped = new Set(packed[0].files.map((f) => f.path));
  const isShipped = (target: string) => shipped.has(target) || [...shipped].some((f) => f.startsWith(`${target.replace(/\/$/, '')}/`));
  const fromShipped = links.filter((l) => shipped.has(l.from));
  expect(fromShipped.length).toBeGreaterThan(30);
  expect(fromShipped.filter((l) => !isShipped(l.target)).map((l) => `${l.from} → ${l.target}`)).toEqual([]);
});

test('every repository path a document names in code font exists (but docs/api/, which `npm run docs` writes)', () => {
  const named = markdownFiles()
    .filter((file) => !file.startsWith(path.join('docs', 'archive')))
    .flatMap((file) =>
      [...fs.readFileSync(path.join(root, file), 'utf8').matchAll(/`((?:bench|test|lib|native|scripts|examples|docs|prebuilds)\/[^`\s]*)`/g)]
        .map(([, named]) => ({ file, named: named.replace(/[),.:;]+$/, '') }))
        .filter(({ named }) => !/[…<>*{}]/.test(named) && !named.startsWith('docs/api/')),
    );
  expect(named.length).toBeGreaterThan(100);
  expect(named.filter(({ named }) => !fs.existsSync(path.join(root, named))).map(({ file, named }) => `${file}: ${named}`)).toEqual([]);
});

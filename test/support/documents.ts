// What the documentation checks share: the Markdown files, and the anchors their headings get (GitHub's: lower case,
// punctuation dropped, spaces as hyphens, a repeated heading numbered).
import * as fs from 'fs';
import * as path from 'path';
import { filesUnder, root } from './files';

/** The design documents and the front page: README.md, CHANGELOG.md and every Markdown file under docs/. */
export const markdownFiles = (): string[] => ['README.md', 'CHANGELOG.md', ...filesUnder('docs', /\.md$/)];

/** The anchors of a Markdown file's headings (outside code blocks). */
export function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let inCode = false;
  for (const line of fs.readFileSync(path.join(root, file), 'utf8').split('\n')) {
    if (line.startsWith('```')) inCode = !inCode;
    const heading = !inCode && /^#{1,6} (.+)$/.exec(line);
    if (!heading) continue;
    const slug = heading[1].trim().toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** The headings' titles of a Markdown file, as code cites them. */
export function headingsOf(file: string): Set<string> {
  const text = fs.readFileSync(path.join(root, file), 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => m[1].trim()));
}

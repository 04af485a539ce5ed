// The repository's root and its files by kind, for the tests that read the sources and documents themselves.
import * as fs from 'fs';
import * as path from 'path';

export const root = path.join(__dirname, '..', '..');

/** Files under `dir` (relative to the root) whose names match `pattern`, as paths relative to the root. */
export function filesUnder(dir: string, pattern: RegExp): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const relative = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(relative, pattern) : pattern.test(e.name) ? [relative] : [];
  });
}

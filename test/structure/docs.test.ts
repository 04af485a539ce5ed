// The API reference: TypeDoc builds it from the JSDoc comments with no warning (every export documented, no
// broken link), and every exported function, class and method has an @example.
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

interface Reflection {
  name: string;
  kind: number;
  comment?: { blockTags?: { tag: string }[] };
  signatures?: Reflection[];
  children?: Reflection[];
}
const FUNCTION = 64, CLASS = 128, METHOD = 2048;
const hasExample = (r: Reflection | undefined) => r?.comment?.blockTags?.some((t) => t.tag === '@example') ?? false;

test('TypeDoc builds the reference without warnings; every function, class and method has an @example', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cuda-matmul-docs-'));
  const json = path.join(work, 'api.json');
  // treatWarningsAsErrors (typedoc.json): a warning fails this call
  execFileSync(process.execPath, [path.join(__dirname, '..', '..', 'node_modules', 'typedoc', 'bin', 'typedoc'), '--json', json, '--out', path.join(work, 'html')], { cwd: path.join(__dirname, '..', '..') });
  const api = JSON.parse(fs.readFileSync(json, 'utf8')) as Reflection;
  const missing: string[] = [];
  for (const item of api.children ?? []) {
    if (item.kind === FUNCTION && !item.signatures?.some(hasExample)) missing.push(item.name);
    if (item.kind === CLASS) {
      if (!hasExample(item)) missing.push(item.name);
      for (const member of item.children ?? [])
        if (member.kind === METHOD && !member.name.startsWith('[') && !member.signatures?.some(hasExample)) missing.push(`${item.name}.${member.name}`);
    }
  }
  expect(missing).toEqual([]);
});

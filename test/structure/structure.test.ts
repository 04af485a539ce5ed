// The structure docs/architecture.md describes, checked: one option table in TypeScript and C++ that agree, no import
// cycle in lib/, and native layers that include only what they may (binding → core ← backends).
import * as fs from 'fs';
import * as path from 'path';
import { BACKENDS, KERNELS, METRICS, PRECISIONS } from '../../lib/options';
import { native } from '../../lib/native';
import { filesUnder, root } from '../support/files';


test('the option table of lib/options.ts is the one the native parser follows (native/core/options.h)', () => {
  expect(native.options()).toEqual({
    backends: [...BACKENDS],
    precisions: [...PRECISIONS],
    kernels: [...KERNELS],
    metrics: [...METRICS],
  });
});

function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(/^import[^'"]*from '\.\/([\w-]+)'/gm)].map((m) => m[1]);
}

test('lib/ has no import cycle', () => {
  const dir = path.join(root, 'lib');
  const modules = fs.readdirSync(dir).filter((f) => f.endsWith('.ts')).map((f) => f.slice(0, -3));
  const graph = new Map(modules.map((m) => [m, importsOf(path.join(dir, `${m}.ts`))]));
  const cycles: string[] = [];
  const visit = (m: string, trail: string[]) => {
    if (trail.includes(m)) return void cycles.push([...trail.slice(trail.indexOf(m)), m].join(' → '));
    for (const next of graph.get(m) ?? []) visit(next, [...trail, m]);
  };
  for (const m of modules) visit(m, []);
  expect(graph.get('gemm')).toContain('matrix'); // the check sees real edges
  expect(cycles).toEqual([]);
});

// Which layer each native folder may include: the binding and the backends meet only in core/. Node-API is used in
// binding/ and by the driver probe alone.
const MAY_INCLUDE: Record<string, string[]> = {
  binding: ['binding', 'core'],
  core: ['core'],
  cpu: ['core', 'cpu'],
  cuda: ['core', 'cuda'],
  probe: [], // the driver probe: an addon of its own, loaded before the product addon (docs/architecture.md)
};

test('native layers include only the layers below them; no switch hides a missing case behind default:', () => {
  const native = path.join(root, 'native');
  const wrong: string[] = [];
  const sources = filesUnder('native', /\.(h|c|cpp|cu|cuh|inc)$/).map((file) => path.join(root, file));
  expect(sources.length).toBeGreaterThan(30);
  for (const file of sources) {
    const relative = path.relative(native, file);
    const layer = relative.split(path.sep)[0];
    const allowed = MAY_INCLUDE[layer];
    if (!allowed) wrong.push(`${relative}: not in a layer folder`);
    const text = fs.readFileSync(file, 'utf8');
    for (const [, included] of text.matchAll(/#include "([^"]+)"/g))
      if (!allowed?.includes(included.split('/')[0])) wrong.push(`${relative} includes ${included}`);
    if (!['binding', 'probe'].includes(layer) && /#include <(napi|node_api|v8)\.h>/.test(text)) wrong.push(`${relative}: Node-API outside binding/`);
    if (/^\s*default:/m.test(text)) wrong.push(`${relative}: a switch with default:`);
  }
  expect(wrong).toEqual([]);
});

test('the kernels read as the progression from Muld: one numbered file each, one registry row each', () => {
  const dir = path.join(root, 'native', 'cuda', 'kernels');
  const steps = fs.readdirSync(dir).filter((f) => /^\d+_\w+\.cu$/.test(f)).sort();
  expect(steps).toEqual(['0_muld.cu', '1_blocktile.cu', '2_mma.cu', '3_wgmma.cu', '4_wgmma_transposed.cu', '5_wgmma_f16.cu', '6_few_rows.cu']);
  const registry = fs.readFileSync(path.join(dir, 'registry.h'), 'utf8');
  const variantsFunction: Record<string, string> = { blocktile: 'blockTile', 'wgmma-t': 'wgmmaTransposed', 'wgmma-f16': 'wgmmaF16', gemv: 'fewRows' };
  for (const [i, file] of steps.entries()) {
    expect(fs.readFileSync(path.join(dir, file), 'utf8')).toMatch(new RegExp(`^// Step ${i} of the kernel progression`));
    const name = KERNELS[i + 1];
    expect(registry).toMatch(new RegExp(`\\{Kernel::\\w+, ${variantsFunction[name] ?? name}Variants,`));
  }
});

// The .cu files read defines too: without CUDA_MATMUL_WGMMA the kernel registry (native/cuda/kernels/registry.h)
// says wgmma is not built, and a binary built through scripts/build-addon.js would never run it.
test('build-addon compiles .cu files with every define the C++ files get (CUDA_MATMUL_WGMMA with sm_90a alone)', () => {
  const { compileCommands } = require(path.join(root, 'scripts', 'build-addon.js'));
  const commands = (archs: string[]) => compileCommands({}, {
    cxx: 'g++', cuda: { nvcc: 'nvcc', include: '/cuda/include' }, archs, nodeHeaders: '/node', addonApi: '/napi',
  }, '/objects') as { source: string; command: string[] }[];
  const definesOf = (command: string[]) => command.filter((flag) => flag.startsWith('-D')).sort();
  const hopper = commands(['80', '90a']);
  const cxx = hopper.find((c) => c.source.endsWith('.cpp'))!.command;
  expect(definesOf(cxx)).toContain('-DCUDA_MATMUL_WGMMA');
  for (const { command } of hopper.filter((c) => c.source.endsWith('.cu'))) expect(definesOf(command)).toEqual(definesOf(cxx));
  for (const { command } of commands(['80'])) expect(command).not.toContain('-DCUDA_MATMUL_WGMMA');
});


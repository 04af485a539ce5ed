// allocHost / freeHost, and info().memory: on every backend (page-locked memory where CUDA is usable,
// plain memory otherwise; the behaviour is the same).
import { types } from 'util';
import { allocHost, freeHost, info, matmul, matmulSync } from '../../lib';
import { runScenario } from '../support/child';
import { relativeError } from '../support/helpers';

function fillRandom(array: Float32Array): Float32Array {
  for (let i = 0; i < array.length; i++) array[i] = Math.random() * 2 - 1;
  return array;
}

test('allocHost gives a zero-length-safe, writable Float32Array of the length asked for', () => {
  const array = allocHost(1000);
  expect(types.isFloat32Array(array)).toBe(true);
  expect(array.length).toBe(1000);
  expect(array.byteOffset).toBe(0);
  array.fill(2.5);
  expect(array[999]).toBe(2.5);
  expect(allocHost(0).length).toBe(0);
  freeHost(array);
});

test('freeHost empties every view of the array at once', () => {
  const array = allocHost(64);
  const view = array.subarray(8, 16);
  freeHost(array);
  expect(array.length).toBe(0);
  expect(view.length).toBe(0);
});

test.each(['auto', 'cpu'] as const)('matmul (backend %s) reads and writes allocHost arrays', async (backend) => {
  const [m, k, n] = [97, 131, 61];
  const a = fillRandom(allocHost(m * k));
  const b = fillRandom(allocHost(k * n));
  const out = allocHost(m * n).fill(NaN);
  const c = await matmul(a, b, { m, k, n }, { backend, out });
  expect(c).toBe(out);
  expect(relativeError(c, a, b, m, k, n)).toBeLessThanOrEqual(1e-5);
  const d = matmulSync(a, b, { m, k, n }, { backend });
  expect(relativeError(d, a, b, m, k, n)).toBeLessThanOrEqual(1e-5);
  [a, b, out].forEach(freeHost);
});

test('freeHost while a matmul uses the array: the product still completes correctly', async () => {
  const [m, k, n] = [300, 200, 100];
  const a = fillRandom(allocHost(m * k));
  const b = fillRandom(new Float32Array(k * n));
  const aCopy = a.slice();
  const pending = matmul(a, b, { m, k, n });
  freeHost(a); // the product keeps the memory until it ends
  const c = await pending;
  expect(relativeError(c, aCopy, b, m, k, n)).toBeLessThanOrEqual(1e-5);
});

test('info().memory reports what the library holds', () => {
  const { memory } = info();
  for (const key of ['deviceBytesInUse', 'deviceBytesCached', 'stagingBytes', 'resultBytesCached', 'resultBytesPinned'] as const) {
    expect(typeof memory[key]).toBe('number');
    expect(memory[key]).toBeGreaterThanOrEqual(0);
  }
});

// In a fresh process: in this one, another suite's Matrices may live until the garbage collector takes them.
test('info().memory: nothing in use once the products (allocHost arrays too) have ended', () => {
  const result = runScenario(`
    const { allocHost, freeHost, info, matmul } = require(ROOT);
    (async () => {
      for (const [m, k, n] of [[97, 131, 61], [300, 200, 100], [1500, 700, 900]]) {
        const a = allocHost(m * k).fill(0.5), b = new Float32Array(k * n).fill(2);
        await matmul(a, b, { m, k, n });
        freeHost(a);
      }
      console.log('in use', info().memory.deviceBytesInUse);
    })();`);
  expect(result.output).toContain('in use 0');
});

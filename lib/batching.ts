// Dynamic batching of small products from host arrays (issue 13; bench/NOTES.md, "Dynamic batching"). A small
// matmul made while earlier small ones are still running is gathered (native/binding/gathered.cpp holds its
// arrays), and what was gathered runs as one batch once a staging buffer's worth is there or work in flight ends:
// one copy each way and one launch per staging buffer of products (native/cuda/transfer/gathered_products.cu)
// instead of a thread-pool round trip, a stream and three copies each. A call made when nothing is in flight runs
// at once, alone, on the inline route as before, so batching adds no latency to a lone call. Results, errors and
// `out` arrays stay per call: a bad argument rejects its own call when it is made; a failure of a batch rejects
// every call in it.
import { native } from './native';
import type { MatmulCall } from './validate';

// What the native layer gathers (native/core/request.h): A, B and C together at most 64 Ki elements (256 KiB,
// 128³), k at most 1024.
const MAX_FLOATS = 64 * 1024;
const MAX_DEPTH = 1024;

// A batch holds at most 7.5 MiB of products (a staging buffer of 8 MiB also holds their table) and starts as soon
// as it is full, so that batches run while calls are still being made, up to one per thread of libuv's default
// pool; the others start as work in flight ends.
const BATCH_FLOATS = 1920 * 1024;
const MAX_RUNNING = 4;

interface Waiting {
  out: Float32Array;
  length: number;
  resolve(out: Float32Array): void;
  reject(error: unknown): void;
}

interface Batch {
  calls: Waiting[];
  floats: number;
}

let running = 0; // small calls in flight: lone ones and batches
const batches: Batch[] = []; // gathered in this order, not yet started; while any is, something runs
let cudaUsable: boolean | undefined;

// A, B and C's elements together.
const floatsOf = ({ m, k, n }: MatmulCall['shape']): number => m * k + k * n + m * n;

// Small, on 'auto' kernel and device 0, where CUDA is usable (read once; elsewhere nothing is gathered).
function gatherable(call: MatmulCall): boolean {
  const { m, k, n } = call.shape;
  const { backend, kernel, device } = call.options;
  if (backend === 'cpu' || (kernel !== undefined && kernel !== 'auto') || (device !== undefined && device !== 0)) return false;
  if (floatsOf(call.shape) > MAX_FLOATS || k > MAX_DEPTH || m * n === 0) return false;
  cudaUsable ??= native.cudaInfo().usable;
  return cudaUsable;
}

function startBatch(): void {
  const { calls } = batches.shift()!;
  let run: Promise<void>;
  try {
    run = native.runGathered(calls.length);
  } catch (error) {
    for (const call of calls) call.reject(error);
    return;
  }
  running++;
  run.then(
    () => {
      ended();
      for (const call of calls) {
        if (call.out.length === call.length) call.resolve(call.out);
        else call.reject(new TypeError('out: its ArrayBuffer was detached while the product ran'));
      }
    },
    (error: unknown) => {
      ended();
      for (const call of calls) call.reject(error);
    },
  );
}

function ended(): void {
  running--;
  while (batches.length > 0 && running < MAX_RUNNING) startBatch();
}

/** The product, gathered into a batch or run alone; undefined when the call is not one to gather. */
export function multiplySmall(call: MatmulCall): Promise<Float32Array> | undefined {
  if (!gatherable(call)) return undefined;
  const { m, k, n } = call.shape;
  const out = call.options.out;
  if (running === 0) {
    const alone = native.matmul(call.a, call.b, call.shape, call.options); // a throw here started nothing
    running++;
    return alone.then(
      (c) => (ended(), c),
      (error: unknown) => {
        ended();
        throw error;
      },
    );
  }
  native.gather(call.a, call.b, m, k, n, out);
  const floats = floatsOf(call.shape);
  let last = batches[batches.length - 1];
  if (!last || last.floats + floats > BATCH_FLOATS) batches.push((last = { calls: [], floats: 0 }));
  last.floats += floats;
  const gathered = new Promise<Float32Array>((resolve, reject) => last.calls.push({ out, length: m * n, resolve, reject }));
  if (batches.length > 1 && running < MAX_RUNNING) startBatch();  // the first batch is full
  return gathered;
}

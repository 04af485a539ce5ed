// Dynamic batching of small products from host arrays (docs/batching.md, "Gathered small products"). A small
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
// as it is full, however many are running, so that batches run while a long synchronous loop is still making
// calls (they queue for the thread pool like any other call); the last one, not full, starts when work in flight
// ends. Capped at four running, the rest waited for that loop to yield: 20 000 concurrent 64³ products, 85 000
// against 141 000 products/s on the H100 host (docs/batching.md, "Gathered small products").
const BATCH_FLOATS = 1920 * 1024;

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
let open: Batch | undefined; // gathered, not yet started (not full); while it is, something runs
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

function startBatch({ calls }: Batch): void {
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
  if (!open) return;
  const batch = open;
  open = undefined;
  startBatch(batch);
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
  if (open && open.floats + floats > BATCH_FLOATS) {
    startBatch(open); // full: it runs what was gathered before this call
    open = undefined;
  }
  const batch = (open ??= { calls: [], floats: 0 });
  batch.floats += floats;
  return new Promise<Float32Array>((resolve, reject) => batch.calls.push({ out, length: m * n, resolve, reject }));
}

// The `signal` option (docs/lifecycle.md, "Cancellation") of every asynchronous call, on each backend: an aborted signal
// rejects at once with its reason; calls queued when the abort comes are dropped; a running CPU product stops
// at its next slice of k; device work ends with its result not delivered; a write into an existing Matrix is
// withdrawn whole, and later operations see the Matrix as the operations before it made it.
import { getEventListeners } from 'events';
import { gemm, info, Matrix, matmul, matmulSync } from '../../lib';
import type { Backend } from '../../lib';
import { describeGpu, gpuSuiteName, poisoned, randomMatrix, sameBytes, thrownBy } from '../support/helpers';

/** What `promise` rejects with, or a failure if it resolves. */
async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to reject');
}

/** 'resolved', or the rejection's name. */
const outcomeOf = (promise: Promise<unknown>): Promise<string> =>
  promise.then(() => 'resolved', (error: unknown) => (error as Error).name);

const ones = (length: number) => new Float32Array(length).fill(1);

/** Busy work on a backend: its output Matrix, and a wait for the work's end that frees what it made. */
interface BusyWork {
  output: Matrix;
  done(): Promise<void>;
}

/**
 * Three products that the call under test is ordered after, not only issued after: each reads `read` (a later
 * write into `read` waits for them) and writes `output` (a later read of `output` waits for them). The CPU backend
 * runs calls that wait for nothing side by side on its thread pool, so such a call could start, and end, before an
 * abort issued right after it; and together they last long enough (on the CPU, tens of milliseconds each) that an
 * abort from a JavaScript thread held up for tens of milliseconds on a loaded machine still finds the call queued.
 * On the device a write is decided after it ran (native/cuda/withdrawal.h), so there the stream's order alone keeps
 * it queued. A call that allocates device memory (the first of its size) may wait for the device, so the first
 * product is awaited and each test makes one call of its shape first.
 */
async function busyWork(read: Matrix, device: { backend?: Backend }): Promise<BusyWork> {
  // Each product's floating-point operations: 2 G on the CPU (tens of milliseconds on two cores), on the device
  // 137 G, a 4096³ product's (a millisecond or more on an H100).
  const operations = device.backend === 'cpu' ? 2 ** 31 : 2 ** 37;
  const width = Math.ceil(operations / (2 * read.rows * read.cols) / 1024) * 1024;
  // Its values do not matter, only its size: 256 MiB of ones take 0.15 s to make, of random values 1 s.
  const Wide = await Matrix.from(ones(read.cols * width), read.cols, width, device);
  const output = await read.matmul(Wide); // its plan's one-time work (Bᵀ kept with Wide) done before any measure
  const queued = [1, 2, 3].map(() => read.matmul(Wide, { out: output }));
  return {
    output,
    done: async () => {
      await Promise.all(queued);
      [Wide, output].forEach((m) => m.dispose());
    },
  };
}

function suite(backend: Exclude<Backend, 'auto'>): void {
  const device = backend === 'cuda' ? {} : { backend };

  test('an aborted signal rejects every call at once with its reason, and nothing runs', async () => {
    const reason = new Error('client went away');
    const signal = AbortSignal.abort(reason);
    const [m, k, n] = [33, 17, 9];
    const a = randomMatrix(m * k), b = randomMatrix(k * n), out = poisoned(m * n);
    expect(await rejectionOf(matmul(a, b, { m, k, n }, { ...device, out, signal }))).toBe(reason);
    expect(await rejectionOf(gemm({ a, b, c: out, m, k, n }, { ...device, signal }))).toBe(reason);
    expect(out.every(Number.isNaN)).toBe(true);

    expect(await rejectionOf(Matrix.from(a, m, k, { ...device, signal }))).toBe(reason);
    const [A, B] = [await Matrix.from(a, m, k, device), await Matrix.from(b, k, n, device)];
    const before = randomMatrix(m * n);
    const C = await Matrix.from(before, m, n, device);
    expect(await rejectionOf(A.matmul(B, { signal }))).toBe(reason);
    expect(await rejectionOf(A.matmul(B, { out: C, signal }))).toBe(reason);
    expect(await rejectionOf(gemm({ a: A, b: B, c: C, m, k, n }, { signal }))).toBe(reason);
    expect(await rejectionOf(C.toArray({ signal }))).toBe(reason);
    expect(sameBytes(await C.toArray(), before)).toBe(true);
    [A, B, C].forEach((x) => x.dispose());
  });

  test('a reason of the signal\'s own: AbortSignal.timeout rejects with a TimeoutError', async () => {
    const size = backend === 'cpu' ? 1536 : 4096;
    const x = randomMatrix(size * size);
    const error = await rejectionOf(matmul(x, x, { m: size, k: size, n: size }, { ...device, signal: AbortSignal.timeout(1) }));
    expect((error as Error).name).toBe('TimeoutError');
  });

  test('calls that end before the abort keep their results; a later abort changes nothing', async () => {
    const controller = new AbortController();
    const [m, k, n] = [40, 30, 20];
    const a = randomMatrix(m * k), b = randomMatrix(k * n);
    const first = await matmul(a, b, { m, k, n }, { ...device, signal: controller.signal });
    controller.abort();
    expect(sameBytes(first, await matmul(a, b, { m, k, n }, device))).toBe(true);
  });

  test('one signal on many calls takes one listener, removed when they settle', async () => {
    const controller = new AbortController();
    const x = randomMatrix(64 * 64);
    const calls = Array.from({ length: 50 }, () => matmul(x, x, { m: 64, k: 64, n: 64 }, { ...device, signal: controller.signal }));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    await Promise.all(calls);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  test('aborting 40 large products queued together drops those not yet started; later calls run as before', async () => {
    // Products long enough that few end before the abort even where the JavaScript thread is held up and the pool's
    // threads are not: on a loaded two-core machine the abort came after 17 of 40 products of 768³ (20 ms each) had
    // settled; with the JavaScript thread held up 400 ms, 15 of 768³ settle first, 2 of 1536³.
    const size = backend === 'cpu' ? 1536 : 3072;
    const x = randomMatrix(size * size);
    const controller = new AbortController();
    const inUse = info().memory.deviceBytesInUse;
    const calls = Array.from({ length: 40 }, () => outcomeOf(matmul(x, x, { m: size, k: size, n: size }, { ...device, signal: controller.signal })));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const aborted = performance.now();
    controller.abort();
    const outcomes = await Promise.all(calls);
    const settled = performance.now() - aborted;
    expect(outcomes.filter((o) => o === 'AbortError').length).toBeGreaterThanOrEqual(30);
    expect(outcomes.every((o) => o === 'AbortError' || o === 'resolved')).toBe(true);
    // What ran on when the abort came is at most a product per pool thread, not the 30 or more dropped.
    expect(settled).toBeLessThan(2000);
    // At most: other suites' objects may be collected meanwhile. The 40 calls hold 3·36 MiB each on the device.
    expect(info().memory.deviceBytesInUse).toBeLessThanOrEqual(inUse);
    const [m, k, n] = [20, 30, 10];
    const a = randomMatrix(m * k), b = randomMatrix(k * n);
    expect(sameBytes(await matmul(a, b, { m, k, n }, device), matmulSync(a, b, { m, k, n }, device))).toBe(true);
  });

  test('a write into a Matrix is withdrawn whole or made whole, and the Promise says which, wherever the abort comes', async () => {
    const size = backend === 'cpu' ? 384 : 2048;
    const [X, W] = [await Matrix.from(randomMatrix(size * size), size, size, device), await Matrix.from(randomMatrix(size * size), size, size, device)];
    const written = await (await X.matmul(W)).toArray();
    const before = randomMatrix(size * size);
    const first = await Matrix.from(before, size, size, device);
    // The memory a write keeps aside, cached for both calls the loop makes: a first write of a size allocates it, and
    // that allocation waits for the device, so it would find the busy work done and the write decided before its abort.
    await X.matmul(W, { out: first, signal: new AbortController().signal });
    await gemm({ a: X, b: W, c: first, m: size, k: size, n: size }, { signal: new AbortController().signal });
    first.dispose();
    const outcomes: string[] = [];
    for (let i = 0; i < 12; i++) {
      const C = await Matrix.from(before, size, size, device);
      const controller = new AbortController();
      const busy = await busyWork(C, device); // the write into C queues behind its reads
      const write = i % 2 === 0 ? X.matmul(W, { out: C, signal: controller.signal }) : gemm({ a: X, b: W, c: C, m: size, k: size, n: size }, { signal: controller.signal });
      if (i < 4) controller.abort(); // while the write is queued
      else setTimeout(() => controller.abort(), (i - 4) * 40); // from at once to after the write
      const seen = C.toArray(); // issued after the write: sees it, or what was before it
      const outcome = await outcomeOf(write);
      outcomes.push(outcome);
      expect(['AbortError', 'resolved']).toContain(outcome);
      expect(sameBytes(await seen, outcome === 'AbortError' ? before : written)).toBe(true);
      await busy.done();
      C.dispose();
    }
    expect(outcomes.slice(0, 4)).toEqual(['AbortError', 'AbortError', 'AbortError', 'AbortError']);
    [X, W].forEach((m) => m.dispose());
  });

  test('gemm with β on Matrices, aborted while queued: the chain after it computes from c as it was', async () => {
    const size = backend === 'cpu' ? 256 : 1024;
    const [x, c0] = [randomMatrix(size * size), randomMatrix(size * size)];
    const [X, C, First] = await Promise.all([x, c0, c0].map((v) => Matrix.from(v, size, size, device)));
    const scaled = { m: size, k: size, n: size, alpha: 2, beta: 1 };
    // A first write of the shape: the memory it keeps aside and its temporary, cached; Bᵀ kept with X.
    await gemm({ a: X, b: X, c: First, ...scaled }, { signal: new AbortController().signal });
    const controller = new AbortController();
    const busy = await busyWork(C, device);
    const write = gemm({ a: X, b: X, c: C, ...scaled }, { signal: controller.signal });
    controller.abort();
    const next = C.matmul(X); // reads C after the withdrawn write
    expect(await outcomeOf(write)).toBe('AbortError');
    const expected = await (await Matrix.from(c0, size, size, device)).matmul(X);
    expect(sameBytes(await (await next).toArray(), await expected.toArray())).toBe(true);
    await busy.done();
    [X, C, First, expected].forEach((m) => m.dispose());
  });

  test('a product into a new Matrix, aborted, makes no Matrix and leaves no memory held', async () => {
    const size = backend === 'cpu' ? 256 : 2048;
    const X = await Matrix.from(randomMatrix(size * size), size, size, device);
    // The product of the busy work's output and Y, once: its plan's one-time work (Yᵀ kept with Y), its memory cached.
    const first = await busyWork(X, device);
    const Y = await Matrix.from(randomMatrix(first.output.cols * 64), first.output.cols, 64, device);
    (await first.output.matmul(Y)).dispose();
    await first.done();
    const busy = await busyWork(X, device);
    const inUse = info().memory.deviceBytesInUse;
    const controller = new AbortController();
    const product = busy.output.matmul(Y, { signal: controller.signal }); // waits for the busy work to write its input
    controller.abort();
    expect(await outcomeOf(product)).toBe('AbortError');
    await busy.done();
    // Less, not equal: the busy work's Matrices are freed too, and other suites' objects may be collected meanwhile.
    expect(info().memory.deviceBytesInUse).toBeLessThanOrEqual(inUse);
    [X, Y].forEach((m) => m.dispose());
  });
}

describe('cpu backend', () => {
  suite('cpu');

  test('a running 3072³ product stops at its next slice of k', async () => {
    const size = 3072;
    const x = ones(size * size);
    // One result array for both products: a new 36 MiB result would invite a collection into the measurement.
    const out = new Float32Array(size * size);
    const product = (signal?: AbortSignal) => matmul(x, x, { m: size, k: size, n: size }, { backend: 'cpu', out, signal });
    // Processor time, not the clock: other processes on a loaded machine stretch the clock, not this work.
    const processorMs = () => {
      const { user, system } = process.cpuUsage();
      return (user + system) / 1000;
    };
    const beforeWhole = processorMs();
    await product();
    const whole = processorMs() - beforeWhole;
    const controller = new AbortController();
    const aborted = outcomeOf(product(controller.signal));
    // 30 ms in: the whole product takes 0.2 s on 15 cores, about 1 s on one.
    await new Promise((resolve) => setTimeout(resolve, 30));
    const atAbort = processorMs();
    controller.abort();
    expect(await aborted).toBe('AbortError');
    // Any work still running after the rejection would show in this pause too.
    await new Promise((resolve) => setTimeout(resolve, 50));
    // A block of a slice of k is a few milliseconds of a core's work; the rest of the product would be most of the
    // whole. A quarter leaves room for a garbage collection of the other tests' arrays meanwhile.
    expect(processorMs() - atAbort).toBeLessThan(whole / 4);
  });
});

describeGpu(gpuSuiteName('cuda backend'), () => suite('cuda'));

describe('signal: arguments', () => {
  test('a signal that is not an AbortSignal is a TypeError naming it', async () => {
    const x = ones(4);
    await expect(matmul(x, x, { m: 2, k: 2, n: 2 }, { signal: 'soon' as unknown as AbortSignal })).rejects.toThrow('signal: expected an AbortSignal, got a string');
    await expect(Matrix.from(x, 2, 2, { signal: {} as AbortSignal })).rejects.toThrow('signal: expected an AbortSignal, got an object');
  });

  test('matmulSync takes no signal: nothing can abort a call that holds the thread', () => {
    const x = ones(4);
    expect(thrownBy(() => matmulSync(x, x, { m: 2, k: 2, n: 2 }, { signal: new AbortController().signal } as object)).message).toMatch(
      /^signal: matmulSync holds the thread/,
    );
  });
});

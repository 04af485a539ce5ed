// The option types, spelled out for the reference documentation: options.ts checks them against its table.
/** Where a product runs. `'auto'` uses CUDA when a device is usable, else the CPU. */
export type Backend = 'auto' | 'cuda' | 'cpu';
/**
 * Which CUDA kernel runs. `'auto'` lets the planner choose per shape and device; `'muld'` is the classic 16×16
 * tiled kernel, `'blocktile'` the register-blocked 128×128 FFMA one, `'mma'` the tensor-core one (compute
 * capability 8.0+; 3xTF32 for fp32 accuracy), `'wgmma'` Hopper's warpgroup tensor-core one (compute capability
 * 9.0: H100, H200; 3xTF32 for fp32 accuracy too), which `'auto'` picks there for all but small and skinny products
 * in fp32 and mid-sized ones in tf32, and `'wgmma-t'` the same tensor cores on the transposed product Cᵀ = Bᵀ·Aᵀ
 * (compute capability 9.0), which reads B as it is stored: for products with few rows and a large B (64×768×100000),
 * and in tf32 for large products and for those with a long K (1024×8192×2048). `'wgmma-f16'` computes `'tf32'`
 * products on the fp16 tensor cores, twice as fast as the TF32 ones, with the same result: rows of A and B are scaled
 * by powers of two so that each value rounds to fp16 exactly as to TF32; a value the scaling cannot hold (one over
 * 2^28 below the largest of its row or column) has its own terms added in fp32, and a non-finite one (or more such
 * values than those corrections take) its row or column of C recomputed in fp32; it reads B held as Bᵀ as stored
 * (compute capability 9.0; 'auto' picks it for large tf32 products; in fp32 it runs `'wgmma-t'`'s 3xTF32).
 * `'gemv'` computes products with at most 16 rows or 16 columns (a vector times a matrix, a few queries against
 * a corpus) at the rate the GPU reads the large operand, with A and B read as stored (transposed or not); fp32 in
 * both precisions; `'auto'` picks it for every such product (but a small one from host arrays that may be gathered
 * with other calls, which Muld computes: docs/accuracy.md, "Determinism"), and asking for it on a larger one is a RangeError.
 */
export type KernelName = 'auto' | 'muld' | 'blocktile' | 'mma' | 'wgmma' | 'wgmma-t' | 'wgmma-f16' | 'gemv';
/**
 * Arithmetic precision. `'fp32'` (default): float32 accuracy. `'tf32'`: tensor-core TF32 products, about
 * 3e-4 relative error, faster; kernels and backends without such a mode compute it in fp32.
 */
export type Precision = 'fp32' | 'tf32';

/**
 * How `Matrix#search` scores a corpus row c against a query q: `'dot'`, q·c, larger first; `'cosine'`,
 * q·c / (‖q‖·‖c‖), larger first, 0 where either is all zeros; `'l2'`, the squared Euclidean distance ‖q − c‖²,
 * smaller first.
 */
export type Metric = 'dot' | 'cosine' | 'l2';

/** Options of `Matrix#search`. */
export interface SearchOptions {
  /** How many rows to return for each query: 1 to the corpus's rows, at most 1024. */
  k: number;
  /** How rows are scored (default `'dot'`). */
  metric?: Metric;
  /** Arithmetic precision of the scores (default `'fp32'`); `'tf32'` may rank rows whose scores nearly tie differently. */
  precision?: Precision;
  /** Aborts the search: the Promise rejects with `signal.reason` (docs/lifecycle.md, "Cancellation"). */
  signal?: AbortSignal;
}

/** What `Matrix#search` finds: for each query, k rows, best first (row-major: query i's are [i·k, (i + 1)·k)). */
export interface SearchResult {
  /** The rows' indices in the corpus. Equal scores come in the order of their rows; NaN scores come last. */
  indices: Uint32Array;
  /** Their scores, as the metric gives them. */
  scores: Float32Array;
}

/** C (m×n) = A (m×k) · B (k×n), all row-major. */
export interface Shape {
  /** Rows of A and of C. */
  m: number;
  /** Columns of A, rows of B: the length of each dot product. */
  k: number;
  /** Columns of B and of C. */
  n: number;
}

/** Options of `matmul` and `matmulSync`. */
export interface MatmulOptions {
  /** Where the product runs (default `'auto'`: CUDA when usable, else the CPU). */
  backend?: Backend;
  /** Which CUDA kernel runs (default `'auto'`: the fastest measured for the shape and device). */
  kernel?: KernelName;
  /** Arithmetic precision (default `'fp32'`). */
  precision?: Precision;
  /** Written in place and returned; length m·n; must not share memory with `a` or `b`. */
  out?: Float32Array;
  /** CUDA device index (default 0). */
  device?: number;
  /**
   * Aborts the call: its Promise rejects with `signal.reason` (docs/lifecycle.md, "Cancellation"). A call not yet started is
   * dropped; a running CPU product stops at its next slice of k; device work runs to its end, its result not
   * delivered (`out` may have been written).
   */
  signal?: AbortSignal;
}

/** A CUDA device, as `info().devices` lists it. */
export interface DeviceInfo {
  /** Its index, for the `device` option. */
  index: number;
  /** e.g. "NVIDIA H100 80GB HBM3" */
  name: string;
  /** e.g. "9.0" */
  computeCapability: string;
  /** bytes */
  totalMemory: number;
}

/** What `info()` reports. */
export interface Info {
  /** What `backend: 'auto'` uses. */
  backend: 'cuda' | 'cpu';
  /** Why CUDA is not used, when it is not. */
  reason?: string;
  /** The CUDA devices found (none without a driver or a CUDA build). */
  devices: DeviceInfo[];
  /** What this library holds now, in bytes, over all devices (0 without CUDA). */
  memory: MemoryInfo;
  /** The CPUs this process may run on, and how many of them the library keeps busy at most. */
  cpu: CpuInfo;
  /** This package's version. */
  version: string;
  /** Which native binary was loaded: its variant, CUDA runtime, file, and why it was chosen. */
  binary: BinaryInfo;
}

/** Which native binary was loaded, and why that one (`info().binary`). */
export interface BinaryInfo {
  /** The variant: `'cuda13'`, `'cuda12'`, `'cpu'` (shipped), `'local'` (built from source), or `'custom'`. */
  variant: string;
  /** Where it came from: shipped in the package, built from source in it, or named by CUDA_MATMUL_ADDON. */
  origin: 'shipped' | 'local build' | 'CUDA_MATMUL_ADDON';
  /** The CUDA runtime linked into it (`'13.0'`, `'12.4'`), or null for a binary without CUDA. */
  cudaRuntime: string | null;
  /** The GPU architectures it carries machine code for (`'90a'`: Hopper's wgmma kernels). */
  architectures: string[];
  /** The file loaded. */
  path: string;
  /** The CUDA version the installed NVIDIA driver supports (`'12.8'`), or null where no driver was found. */
  driverCuda: string | null;
  /** Why the binary was chosen: the driver's CUDA version, or what was missing. */
  choice: string;
  /** Set where this binary's CUDA path has not yet run on a GPU (linux-arm64's CUDA build, until it has). */
  untested?: string;
}

/** The CPUs the library may use (`info().cpu`). */
export interface CpuInfo {
  /**
   * The CPUs this process may run on: its affinity mask (a container's cpuset, `taskset`), no more than its
   * cgroup's CPU quota rounded up (`docker --cpus`, a Kubernetes CPU limit). Not the machine's count, which a
   * container sees whole.
   */
  cores: number;
  /**
   * How many of them CPU products and host copies keep busy at most, all products in flight together: every core but
   * one, which stays the JavaScript thread's, or `CUDA_MATMUL_CPU_THREADS` where it is set (1 to 1024).
   */
  threads: number;
}

/** Memory the library holds, in bytes (`info().memory`). */
export interface MemoryInfo {
  /** Device memory held by products in flight. */
  deviceBytesInUse: number;
  /** Device memory kept for reuse by later calls; given back after a few idle seconds. */
  deviceBytesCached: number;
  /** Page-locked host staging buffers (in use or cached), given back the same way. */
  stagingBytes: number;
  /**
   * Host memory of garbage-collected result arrays, kept to back later results without faulting in new pages;
   * at most 512 MiB (or an eighth of the memory the process may use: a container's memory limit, not its host's),
   * given back after a few idle seconds.
   */
  resultBytesCached: number;
  /**
   * Result memory of 32 MiB blocks and up that is page-locked (so the GPU writes results there by DMA), whether
   * handed out or cached; at most the cache's limit.
   */
  resultBytesPinned: number;
}

/**
 * The `.code` of an `Error` the library rejects with (TypeErrors and RangeErrors about arguments have none):
 * CUDA unavailable for an explicit `backend: 'cuda'`, a kernel the device cannot run, host memory exhausted,
 * or the name of the CUDA error (e.g. `'cudaErrorMemoryAllocation'`).
 */
export type ErrorCode = 'ERR_CUDA_UNAVAILABLE' | 'ERR_KERNEL_UNSUPPORTED' | 'ERR_OUT_OF_MEMORY' | `cuda${string}`;

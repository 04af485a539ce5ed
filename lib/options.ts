// The options a caller chooses from: the one table the validation (validate.ts)
// and the public types (types.ts) follow. The native layer has the same table in native/core/options.h;
// test/structure/structure.test.ts checks the two against each other through native.options().
import type { Backend, KernelName, Metric, Precision } from './types';

/** Where a product runs: `'auto'` uses CUDA when a device is usable, else the CPU. */
export const BACKENDS = ['auto', 'cuda', 'cpu'] as const;

/** Arithmetic precisions: `'fp32'` (the default) and `'tf32'` (tensor-core TF32 products). */
export const PRECISIONS = ['fp32', 'tf32'] as const;

/**
 * The CUDA kernels, in the order of the progression from Muld (native/cuda/kernels/). Each takes both
 * precisions (one without a TF32 mode computes `'tf32'` in fp32).
 */
export const KERNELS = ['auto', 'muld', 'blocktile', 'mma', 'wgmma', 'wgmma-t', 'wgmma-f16', 'gemv'] as const;

/** How a search scores a corpus row against a query (Matrix#search): `'dot'` and `'cosine'` larger first, `'l2'` smaller first. */
export const METRICS = ['dot', 'cosine', 'l2'] as const;

// The public types (types.ts) name the same options; the compiler fails here if they drift apart.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
/** @internal */
export type OptionTypesAgree = [
  Holds<Same<Backend, (typeof BACKENDS)[number]>>,
  Holds<Same<KernelName, (typeof KERNELS)[number]>>,
  Holds<Same<Precision, (typeof PRECISIONS)[number]>>,
  Holds<Same<Metric, (typeof METRICS)[number]>>,
];

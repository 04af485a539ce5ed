// The options a caller chooses from, and the rules between them: the one table the validation (validate.ts)
// and the public types (types.ts) follow. The native layer has the same table in native/core/options.h;
// test/structure.test.ts checks the two against each other through native.options().
import type { Backend, KernelName, Precision } from './types';

/** Where a product runs: `'auto'` uses CUDA when a device is usable, else the CPU. */
export const BACKENDS = ['auto', 'cuda', 'cpu'] as const;

/** Arithmetic precisions: `'fp32'` (the default) and `'tf32'` (tensor-core TF32 products). */
export const PRECISIONS = ['fp32', 'tf32'] as const;

/**
 * The CUDA kernels, in the order of the progression from Muld (native/cuda/kernels/), and the precisions each
 * may be asked for. `'tf32'` may be asked of every kernel (one without a TF32 mode computes it in fp32); a
 * kernel without an fp32 mode must be asked for with `'tf32'`.
 */
export const KERNELS = {
  auto: { precisions: ['fp32', 'tf32'] },
  muld: { precisions: ['fp32', 'tf32'] },
  blocktile: { precisions: ['fp32', 'tf32'] },
  mma: { precisions: ['fp32', 'tf32'] },
  wgmma: { precisions: ['tf32'] },
} as const satisfies Record<string, { precisions: readonly (typeof PRECISIONS)[number][] }>;

// The public types (types.ts) name the same options; the compiler fails here if they drift apart.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
/** @internal */
export type OptionTypesAgree = [
  Holds<Same<Backend, (typeof BACKENDS)[number]>>,
  Holds<Same<KernelName, keyof typeof KERNELS>>,
  Holds<Same<Precision, (typeof PRECISIONS)[number]>>,
];

// New result arrays (matmul without `out`, Matrix#toArray). Their memory comes from the addon's cache of freed
// results (native/core/result_memory.h): a block already faulted in rather than new pages, which for a 64 MiB result
// cost more than the 4096³ product itself (docs/transfers.md, "New result arrays"). It is not
// zero-filled: the product or the download writes every element before the caller sees the array.
import { native } from './native';

/** A Float32Array of `length` elements (at most the largest the library allocates), contents to be written. */
export function resultArray(length: number): Float32Array {
  // Made here, in the caller's JavaScript realm, so that `instanceof Float32Array` holds for the result.
  return new Float32Array(native.resultBuffer(length), 0, length);
}

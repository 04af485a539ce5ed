// Memory for the arrays the library makes for results (matmul without `out`, Matrix#toArray). When such an array is
// garbage-collected its block is kept, already faulted in, and handed to a later result of a similar size, instead of
// new pages being faulted in on every call: on the H100 host a fresh 4 KiB page costs ~2.5 µs on first touch, a 64
// MiB result 16 387 faults (docs/transfers.md, "New result arrays", and "A cache of collected results' memory"). The
// cache is bounded (512 MiB or an eighth of the memory the process may use, whichever is less: core/process_limits.h;
// the blocks given back longest ago make room) and emptied of blocks idle for a few seconds by the same timer that
// trims the CUDA pools. A block handed out holds a freed result's elements: every caller writes every element before
// any JavaScript can read it. When the last cached block of a large size is taken (or none is there), up to four more
// are made for the next calls, each on a thread of its own, faulted in and page-locked (pinnedResultBlock);
// page-locked blocks are handed out first.
#pragma once

#include <cstddef>

namespace cuda_matmul {

// A 64-byte-aligned block of at least `bytes` (> 0) bytes. Throws MatmulError (ERR_OUT_OF_MEMORY) when no
// memory can be had.
void* takeResultMemory(size_t bytes);

// Takes back a block that takeResultMemory(bytes) returned. Safe on any thread and at any time, process exit
// included: V8 frees backing stores on its own threads and while tearing down a Worker.
void giveBackResultMemory(void* data, size_t bytes);

// Frees the cached blocks given back at least `idleSeconds` ago.
void trimResultMemory(double idleSeconds);

// Whether [data, data + bytes) is a result block of 32 MiB or more that is page-locked: copies may then DMA
// straight into it (cuda/transfer/panels.cu). Only blocks made ahead are, on their own thread, never in a call; they
// stay so while handed out and cached, at most the cache's limit of them in all, and are unlocked before they are
// unmapped.
bool pinnedResultBlock(void* data, size_t bytes);

// Asks the kernel to back a large pageable destination about to be written with 2 MiB pages where it can (transparent
// huge pages in "madvise" mode): a fresh 64 MiB result otherwise takes 16 384 page faults, which cost a 4096³ product
// from plain arrays 6 ms of its 14 on the H100 host (docs/transfers.md, "New result arrays"). Only ranges of 32 MiB or more (mapped on their own: the cache's blocks, glibc's large allocations) and
// only their 2 MiB-aligned interior, so no part of a heap shared with other allocations changes its page size. The
// cache's own blocks get it when mapped; the panel route gives it to a caller's `out`. A hint: errors are ignored.
void preferHugePages(void* data, size_t bytes);

// Bytes of given-back blocks cached for reuse.
size_t resultBytesCached();

// Bytes of result blocks page-locked (pinnedResultBlock), handed out or cached.
size_t resultBytesPinned();

}  // namespace cuda_matmul

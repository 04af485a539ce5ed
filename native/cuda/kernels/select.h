// The GPU search's selection (select.cu): each query's k best rows of a corpus, from the scores a product wrote
// (resident.cu, enqueueResidentSearch), without the scores ever leaving the device.
//
// A candidate is a key, one 64-bit number that orders as core/search.h's CandidateOrder does: its score's rank in
// the high word (the better score larger, NaN 0) and the complement of its row in the low word (the lower row
// larger). The k best are then the k largest keys, and since rows differ, keys do: the selection is exact, and the
// same however the rows were split. Key 0 is no candidate (a row 2^32 − 1 would make it; the plan refuses such a
// corpus).
//
// A block selects the k largest of up to kSelectSegment keys in shared memory by radix select (a byte of the key
// at a time), so a query's scores are cut into segments selected side by side, and the segments' k best each are
// selected again the same way until k are left; these are sorted last (docs/search.md, "Search on the GPU").
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "core/search.h"

namespace cuda_matmul {

constexpr int64_t kSelectSegment = 8192;  // keys per block: 64 KiB of shared memory

// The scores of `queries` queries against rows [firstRow, firstRow + rows) of a corpus, as the product wrote them
// (query q's at scores + q·ld), with what the metric adds to a dot product: each query's and each corpus row's
// normTerm (core/search.h; null for dot; rowTerms indexed by corpus row), and for l2 the vectors themselves, for
// the distances that come out NaN from the norms' form (squaredDistance).
struct ScoreChunk {
  const float* scores;
  int64_t ld, rows;
  uint32_t firstRow;
  Metric metric;
  const double* queryTerms;
  const double* rowTerms;
  const float* queries;
  int64_t queryPitch;
  const float* corpus;
  int64_t corpusPitch, dims;
};

// Segments of `count` keys (or scores) per query.
constexpr int64_t selectSegments(int64_t count) { return (count + kSelectSegment - 1) / kSelectSegment; }

// Each query's k best of each segment of the chunk's rows, as keys: segment s of query q into
// keys[q·keyPitch + s·k, +k) (fewer than k rows in a segment: the rest 0).
void launchSelectScores(const ScoreChunk& chunk, int64_t queries, int64_t k, uint64_t* keys, int64_t keyPitch,
                        cudaStream_t stream);
// Each query's k best of `count` keys at in + q·inPitch, segment by segment, into out + q·outPitch + s·k.
void launchSelectKeys(const uint64_t* in, int64_t inPitch, int64_t count, int64_t queries, int64_t k, uint64_t* out,
                      int64_t outPitch, cudaStream_t stream);
// Each query's k keys at keys + q·keyPitch, sorted best first, as scores and rows (queries×k each, row-major).
void launchWriteBest(const uint64_t* keys, int64_t keyPitch, int64_t queries, int64_t k, Metric metric, float* scores,
                     uint32_t* rows, cudaStream_t stream);
// normTerm(metric, ‖x‖²) of each of x's rows (rows×cols, pitch), summed in float64, into terms.
void launchNormTerms(const float* x, int64_t pitch, int64_t rows, int64_t cols, Metric metric, double* terms,
                     cudaStream_t stream);

}  // namespace cuda_matmul

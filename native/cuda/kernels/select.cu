// The GPU search's selection (select.h): radix select of the k largest keys in a block's shared memory.
// Why a block per segment: one query against 1 000 000 rows gives 123 segments of 8192, enough blocks to read its
// 4 MB of scores at the device's rate, where a block per query would read them through one SM. Each block loads
// its segment once, then narrows a byte of the key at a time (a histogram of 256 bins, the bin holding the k-th
// largest found by a warp's scan) until the k-th largest key is known, or until a bin's keys are exactly those
// still needed; the keys above it are written, then copies of it. Each round of segments leaves at most
// 1/8 of the keys (k ≤ 1024 of 8192), so a million rows take three rounds at k = 1024 and one at k = 10.
// Measured on an H100 (docs/search.md, "Search on the GPU"): one query against 1 000 000 × 768 held as a Matrix,
// 1.009 ms for the whole call; the product by itself 0.961.
#include "cuda/kernels/select.h"


#include "core/errors.h"
#include "cuda/check.h"

namespace cuda_matmul {
namespace {

constexpr int kThreads = 512;
constexpr int kBins = 256;
constexpr size_t kSegmentBytes = sizeof(uint64_t) * kSelectSegment;

// The rank of a score (select.h): larger for the better score, 0 for NaN; −0 ranks as +0, as they compare equal.
__device__ __forceinline__ uint32_t rankOf(float score, bool smallerFirst) {
  if (isnan(score)) return 0;
  const uint32_t bits = __float_as_uint(score == 0.0f ? 0.0f : score);
  const uint32_t increasing = (bits & 0x80000000u) ? ~bits : bits | 0x80000000u;
  return smallerFirst ? ~increasing : increasing;
}

__device__ __forceinline__ float scoreOf(uint32_t rank, bool smallerFirst) {
  if (rank == 0) return __uint_as_float(0x7fc00000u);
  const uint32_t increasing = smallerFirst ? ~rank : rank;
  return __uint_as_float((increasing & 0x80000000u) ? increasing & 0x7fffffffu : ~increasing);
}

__device__ __forceinline__ uint64_t keyOf(float score, uint32_t row, bool smallerFirst) {
  return uint64_t{rankOf(score, smallerFirst)} << 32 | ~row;
}

// Where the narrowing stands: the bytes of the k-th largest key found so far, how many keys above them are still to
// be taken, and whether the keys matching them are exactly those (then every key ≥ `prefix` is taken).
struct Narrowing {
  uint64_t prefix;
  uint32_t need;
  bool whole;
};

// Warp 0: the bin (from the top) that holds the need-th largest of the keys counted, folded into `n`.
__device__ void chooseBin(const uint32_t* histogram, int shift, Narrowing& n) {
  const int lane = threadIdx.x;
  const uint32_t need = n.need;
  __syncwarp();  // every lane has read `n` before one lane writes it
  uint32_t counts[8], sum = 0;
  for (int j = 0; j < 8; ++j) sum += counts[j] = histogram[kBins - 1 - 8 * lane - j];
  uint32_t inclusive = sum;
  for (int offset = 1; offset < 32; offset <<= 1) {
    const uint32_t below = __shfl_up_sync(0xffffffffu, inclusive, offset);
    if (lane >= offset) inclusive += below;
  }
  uint32_t above = inclusive - sum;
  if (above >= need || need > inclusive) return;
  for (int j = 0; j < 8; above += counts[j++]) {
    if (above + counts[j] < need) continue;
    n.prefix |= uint64_t(kBins - 1 - 8 * lane - j) << shift;
    n.need = need - above;
    n.whole = counts[j] == n.need;
    return;
  }
}

// The k largest of keys[0, count) (shared memory, count > k), into out[0, k) in no particular order.
__device__ void selectLargest(const uint64_t* keys, int count, int k, uint64_t* out) {
  __shared__ uint32_t histogram[kBins];
  __shared__ Narrowing n;
  __shared__ int written;
  if (threadIdx.x == 0) n = {0, uint32_t(k), false}, written = 0;
  uint64_t mask = 0;
  for (int shift = 56; shift >= 0; shift -= 8) {
    for (int i = threadIdx.x; i < kBins; i += blockDim.x) histogram[i] = 0;
    __syncthreads();
    const uint64_t prefix = n.prefix;
    for (int i = threadIdx.x; i < count; i += blockDim.x)
      if ((keys[i] & mask) == prefix) atomicAdd(&histogram[(keys[i] >> shift) & (kBins - 1)], 1u);
    __syncthreads();
    if (threadIdx.x < 32) chooseBin(histogram, shift, n);
    __syncthreads();
    mask |= uint64_t{kBins - 1} << shift;
    if (n.whole) break;
  }
  // Without `whole`, prefix is the k-th largest key itself: the keys above it, then it (key 0, no candidate, may
  // repeat; every other key is unique).
  const uint64_t threshold = n.prefix;
  const bool whole = n.whole;
  for (int i = threadIdx.x; i < count; i += blockDim.x)
    if (whole ? keys[i] >= threshold : keys[i] > threshold) out[atomicAdd(&written, 1)] = keys[i];
  __syncthreads();
  for (int i = written + threadIdx.x; i < k; i += blockDim.x) out[i] = threshold;
}

// A segment's keys in shared memory, then its k best out: all of them where there are no more than k.
template <class Source>
__global__ void __launch_bounds__(kThreads) selectSegment(Source source, int k, uint64_t* out, int64_t outPitch) {
  extern __shared__ uint64_t keys[];
  const int query = blockIdx.y;
  const int64_t first = int64_t{blockIdx.x} * kSelectSegment;
  const int count = static_cast<int>(source.count - first < kSelectSegment ? source.count - first : kSelectSegment);
  for (int i = threadIdx.x; i < count; i += blockDim.x) keys[i] = source.key(query, first + i);
  __syncthreads();
  uint64_t* best = out + query * outPitch + int64_t{blockIdx.x} * k;
  if (count > k) return selectLargest(keys, count, k, best);
  for (int i = threadIdx.x; i < k; i += blockDim.x) best[i] = i < count ? keys[i] : 0;
}

struct FromScores {
  ScoreChunk chunk;
  int64_t count;
  __device__ uint64_t key(int query, int64_t i) const {
    const ScoreChunk& c = chunk;
    const int64_t row = c.firstRow + i;
    const float dot = c.scores[query * c.ld + i];
    float score = c.metric == Metric::Dot ? dot : metricScore(c.metric, dot, c.queryTerms[query], c.rowTerms[row]);
    if (c.metric == Metric::L2 && isnan(score))
      score = squaredDistance(c.queries + query * c.queryPitch, c.corpus + row * c.corpusPitch, c.dims);
    return keyOf(score, static_cast<uint32_t>(row), c.metric == Metric::L2);
  }
};

struct FromKeys {
  const uint64_t* keys;
  int64_t pitch, count;
  __device__ uint64_t key(int query, int64_t i) const { return keys[query * pitch + i]; }
};

template <class Source>
void launchSegments(const Source& source, int64_t queries, int64_t k, uint64_t* out, int64_t outPitch, cudaStream_t stream) {
  if (queries > 65535)
    throw MatmulError(ErrorKind::Failure, "search selection: more than 65535 queries in one launch");
  // Per launch: the attribute belongs to the current device's context, and setting it costs about a microsecond.
  checkCuda(cudaFuncSetAttribute(selectSegment<Source>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kSegmentBytes)),
            "cudaFuncSetAttribute(search selection)");
  const dim3 grid(static_cast<unsigned>(selectSegments(source.count)), static_cast<unsigned>(queries));
  selectSegment<<<grid, kThreads, kSegmentBytes, stream>>>(source, static_cast<int>(k), out, outPitch);
  checkCuda(cudaGetLastError(), "search selection");
}

// Bitonic sort of each query's k keys (padded with 0 to a power of two), largest first, then decoded.
__global__ void __launch_bounds__(kThreads) writeBest(const uint64_t* keys, int64_t keyPitch, int k, int padded,
                                                     bool smallerFirst, float* scores, uint32_t* rows) {
  extern __shared__ uint64_t sorted[];
  const int query = blockIdx.x;
  for (int i = threadIdx.x; i < padded; i += blockDim.x) sorted[i] = i < k ? keys[query * keyPitch + i] : 0;
  __syncthreads();
  for (int size = 2; size <= padded; size <<= 1)
    for (int stride = size >> 1; stride > 0; stride >>= 1) {
      for (int t = threadIdx.x; t < padded / 2; t += blockDim.x) {
        const int low = 2 * t - (t & (stride - 1)), high = low + stride;
        const bool largestFirst = (low & size) == 0;
        const uint64_t x = sorted[low], y = sorted[high];
        if (largestFirst ? x < y : x > y) sorted[low] = y, sorted[high] = x;
      }
      __syncthreads();
    }
  for (int i = threadIdx.x; i < k; i += blockDim.x) {
    scores[int64_t{query} * k + i] = scoreOf(static_cast<uint32_t>(sorted[i] >> 32), smallerFirst);
    rows[int64_t{query} * k + i] = ~static_cast<uint32_t>(sorted[i]);
  }
}

// A warp per row: its lanes' float64 sums of squares, added in a fixed tree.
__global__ void normTerms(const float* x, int64_t pitch, int64_t rows, int64_t cols, Metric metric, double* terms) {
  const int64_t row = (int64_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  double sum = 0.0;
  for (int64_t j = lane; j < cols; j += 32) sum += double(x[row * pitch + j]) * x[row * pitch + j];
  for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  if (lane == 0) terms[row] = normTerm(metric, sum);
}

}  // namespace

void launchSelectScores(const ScoreChunk& chunk, int64_t queries, int64_t k, uint64_t* keys, int64_t keyPitch,
                        cudaStream_t stream) {
  launchSegments(FromScores{chunk, chunk.rows}, queries, k, keys, keyPitch, stream);
}

void launchSelectKeys(const uint64_t* in, int64_t inPitch, int64_t count, int64_t queries, int64_t k, uint64_t* out,
                      int64_t outPitch, cudaStream_t stream) {
  launchSegments(FromKeys{in, inPitch, count}, queries, k, out, outPitch, stream);
}

void launchWriteBest(const uint64_t* keys, int64_t keyPitch, int64_t queries, int64_t k, Metric metric, float* scores,
                     uint32_t* rows, cudaStream_t stream) {
  int padded = 1;
  while (padded < k) padded <<= 1;
  writeBest<<<static_cast<unsigned>(queries), kThreads, sizeof(uint64_t) * padded, stream>>>(
      keys, keyPitch, static_cast<int>(k), padded, metric == Metric::L2, scores, rows);
  checkCuda(cudaGetLastError(), "search results");
}

void launchNormTerms(const float* x, int64_t pitch, int64_t rows, int64_t cols, Metric metric, double* terms,
                     cudaStream_t stream) {
  constexpr int kRowsPerBlock = 8;
  const auto blocks = static_cast<unsigned>((rows + kRowsPerBlock - 1) / kRowsPerBlock);
  normTerms<<<blocks, 32 * kRowsPerBlock, 0, stream>>>(x, pitch, rows, cols, metric, terms);
  checkCuda(cudaGetLastError(), "search norms");
}

}  // namespace cuda_matmul

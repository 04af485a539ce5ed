// Matrices that stay on the GPU between products (lib/matrix.ts). Uploaded once through the same transfer
// queue as host products; every later operation is queued on its device's ordered stream, in the order the
// calls are made, and returns at once (device_work.h): a chain X·W1 → ·W2 → toArray() runs back to back on the
// device, with no wait on the host between steps. Program order across Matrices needs nothing more, since one
// stream runs its work in order; the binding settles each call's Promise when its event has passed.
#include "cuda/resident_ops.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>

#include "cuda/check.h"
#include "cuda/device_work.h"
#include "cuda/gemm_ops.h"
#include "cuda/kernels/select.h"
#include "cuda/transfer/host_copy.h"
#include "cuda/withdrawal.h"

namespace cuda_matmul {
namespace {

// One stream per device for every Matrix operation of the process, created on first use and kept. Worker
// threads share it (their operations interleave in call order); each operation's launches are queued under the
// lock, so an operation's pieces stay together.
struct OrderedStream {
  std::mutex mutex;
  cudaStream_t stream = nullptr;
  // Scratch memory for one operation at a time (Bᵀ for wgmma, fp16 copies for wgmma-f16): the next operation on the stream runs after this
  // one, so it may reuse the buffer at once, without the allocation a buffer of its own would cost (40 tf32
  // products of 4096³ in flight held 2.5 GB of Bᵀ copies, past the pool's cache, and each cudaFree waited for
  // the device). Work in flight holds the buffer it used, and it goes back to the pool once none is; a larger
  // one replaces it when needed.
  std::weak_ptr<DeviceAllocation> scratch;
  size_t scratchBytes = 0;

  std::shared_ptr<DeviceAllocation> scratchOf(int device, size_t bytes) {
    std::shared_ptr<DeviceAllocation> memory = scratch.lock();
    if (!memory || scratchBytes < bytes) {
      memory = std::make_shared<DeviceAllocation>(device, bytes);
      scratch = memory;
      scratchBytes = bytes;
    }
    return memory;
  }
};

OrderedStream& orderedStream(int device) {
  static std::mutex mutex;
  static auto* streams = new std::map<int, OrderedStream>();  // never destroyed: used until the process ends
  std::lock_guard<std::mutex> lock(mutex);
  OrderedStream& ordered = (*streams)[device];
  if (!ordered.stream) {
    // A stream belongs to the device current when it is made: the caller's may be another (the last call's).
    checkCuda(cudaSetDevice(device), "cudaSetDevice");
    checkCuda(cudaStreamCreateWithFlags(&ordered.stream, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  return ordered;
}

// Where a Matrix operation is queued: its device's ordered stream, locked for the caller, with the device current.
struct OrderedQueue {
  explicit OrderedQueue(int device) : ordered(orderedStream(device)), lock(ordered.mutex) {
    checkCuda(cudaSetDevice(device), "cudaSetDevice");
  }
  OrderedStream& ordered;
  std::lock_guard<std::mutex> lock;
};

// The Matrix's magnitude classes word, found now (queued on `stream`) unless nothing has written it since last
// time (resident.h, DeviceResident::classes).
const uint32_t* classesOf(DeviceResident& matrix, cudaStream_t stream, HeldResources& held) {
  if (!matrix.classes) matrix.classes = std::make_shared<DeviceAllocation>(matrix.device, sizeof(uint32_t));
  auto* word = reinterpret_cast<uint32_t*>(matrix.classes->floats());
  if (matrix.classifiedAt != matrix.writes) {
    checkCuda(cudaMemsetAsync(word, 0, sizeof(uint32_t), stream), "cudaMemsetAsync(classes)");
    launchClassify(matrix.floats(), matrix.pitch, matrix.rows, matrix.cols, word, stream);
    matrix.classifiedAt = matrix.writes;
  }
  held.push_back(matrix.classes);
  return word;
}

// Bᵀ of a Matrix read whole as B by a kernel that reads Bᵀ (wgmma), kept with the Matrix and made again (queued on
// `stream`) only after a write: a weight read by many products is transposed once. Transposing per product cost
// 40 tf32 4096³ products in flight 10% of their time (docs/matrices.md, "Bᵀ kept with a Matrix"). The copy (two in fp32: Bᵀ's remainders)
// lives as long as the Matrix; where device memory has no room for it, null: the product makes Bᵀ in the
// stream's scratch buffer as before.
std::shared_ptr<KernelOperandB> transposedOf(DeviceResident& b, const KernelPlan& plan, cudaStream_t stream,
                                             HeldResources& held) {
  if (!b.transposed || b.transposed->rounding() != transposedBRounding(plan.precision)) {
    b.transposedAt = ~uint64_t{0};
    try {
      b.transposed = std::make_shared<KernelOperandB>(plan, b.device, b.rows, b.cols);
    } catch (const MatmulError&) {  // no room: the product uses the scratch buffer
      b.transposed.reset();
      cudaGetLastError();
      return nullptr;
    }
  }
  if (b.transposedAt != b.writes) {
    b.transposed->from(b.data(), b.rows, b.cols, false, stream);
    b.transposedAt = b.writes;
  }
  held.push_back(b.transposed);
  return b.transposed;
}

// Rows [row, row + count) of a resident matrix, as one of its own that shares (and keeps) the memory.
std::shared_ptr<DeviceResident> rowsOf(const std::shared_ptr<DeviceResident>& matrix, int64_t row, int64_t count) {
  return std::make_shared<DeviceResident>(*matrix, row, count);
}

}  // namespace

std::shared_ptr<DeviceResident> uploadResident(int device, const float* host, int64_t rows, int64_t cols, bool pinned) {
  checkCuda(cudaSetDevice(device), "cudaSetDevice");
  auto matrix = std::make_shared<DeviceResident>(device, rows, cols);
  const PooledStream stream(device);
  TransferQueue(stream.get()).upload({host, rows, cols, pinned}, matrix->data());
  checkCuda(cudaStreamSynchronize(stream.get()), "upload");
  return matrix;
}

std::shared_ptr<DeviceResident> allocateResident(int device, int64_t rows, int64_t cols) {
  checkCuda(cudaSetDevice(device), "cudaSetDevice");
  return std::make_shared<DeviceResident>(device, rows, cols);
}

namespace {

// A write into c on its device's ordered stream: the stream locked for the caller, what the work holds (a, b, c
// and what is added), and where the call has an abort, the write made withdrawable (withdrawal.h).
struct QueuedWrite {
  QueuedWrite(const std::shared_ptr<DeviceResident>& a, const std::shared_ptr<DeviceResident>& b,
              const std::shared_ptr<DeviceResident>& c, std::shared_ptr<CallAbort> withdrawable)
      : queue(c->device), written(*c), held{a, b, c} {
    if (withdrawable) write.emplace(written, queue.ordered.stream, std::move(withdrawable), held);
  }
  // After the write is queued: the call's Work.
  std::unique_ptr<Work> finish() {
    ++written.writes;
    cudaStream_t stream = queue.ordered.stream;
    return write ? write->seal(stream, std::move(held)) : std::make_unique<DeviceWork>(stream, std::move(held));
  }

  OrderedQueue queue;
  DeviceResident& written;
  HeldResources held;
  std::optional<WithdrawableWrite> write;
};

}  // namespace

std::unique_ptr<Work> enqueueResidentGemm(const KernelPlan& plan, const std::shared_ptr<DeviceResident>& a,
                                          const std::shared_ptr<DeviceResident>& b,
                                          const std::shared_ptr<DeviceResident>& c, const GemmShape& s,
                                          const RowBatch& batch, std::shared_ptr<CallAbort> withdrawable) {
  QueuedWrite queued(a, b, c, std::move(withdrawable));
  OrderedStream& ordered = queued.queue.ordered;
  HeldResources& held = queued.held;
  const StreamScratch scratch = [&](size_t bytes) { return ordered.scratchOf(c->device, bytes); };
  const bool checks = classifiesFirst(*plan.row, plan.precision) && batch.count > 0 && s.m > 0 && s.n > 0;
  const uint32_t* aClasses = checks ? classesOf(*a, ordered.stream, held) : nullptr;
  const uint32_t* bClasses = checks ? classesOf(*b, ordered.stream, held) : nullptr;
  const bool wholeB = batch.count == 1 && !s.transB && b->rows == s.k && b->cols == s.n;
  const auto madeB = plan.row->transposedB && wholeB && s.m > 0 && s.n > 0 ? transposedOf(*b, plan, ordered.stream, held) : nullptr;
  for (int64_t i = 0; i < batch.count; ++i)
    enqueueGemm(plan, *rowsOf(a, i * batch.strideA, s.rowsA()), *rowsOf(b, i * batch.strideB, s.rowsB()),
                *rowsOf(c, i * batch.strideC, s.m), s, ordered.stream, scratch, held, aClasses, bClasses, madeB);
  return queued.finish();
}

std::unique_ptr<Work> enqueueResidentBatchedGemm(const std::shared_ptr<DeviceResident>& a,
                                                 const std::shared_ptr<DeviceResident>& b,
                                                 const std::shared_ptr<DeviceResident>& c, const GemmShape& s,
                                                 const RowBatch& batch, std::shared_ptr<CallAbort> withdrawable) {
  QueuedWrite queued(a, b, c, std::move(withdrawable));
  launchStridedBatch({a->floats(), b->floats(), c->floats(), batch.strideA * a->pitch, batch.strideB * b->pitch,
                      batch.strideC * c->pitch, batch.count, s.m, s.k, s.n, a->pitch, b->pitch, c->pitch},
                     queued.queue.ordered.stream);
  checkCuda(cudaGetLastError(), "strided batch");
  return queued.finish();
}

namespace {

// A search's scores exist a chunk at a time: a group of at most kSearchGroupQueries queries against as many corpus
// rows as keep the chunk within kSearchChunkFloats (128 MiB), whole segments of the selection's (select.h). The
// product of a chunk fills the device (a million rows against one query is one chunk; 512 queries, 65 536 rows).
constexpr int64_t kSearchChunkFloats = int64_t{32} << 20;
constexpr int64_t kSearchGroupQueries = 4096;

int64_t searchChunkRows(int64_t groupQueries, int64_t rows) {
  const int64_t segments = std::max<int64_t>(1, kSearchChunkFloats / groupQueries / kSelectSegment);
  return std::min(rows, segments * kSelectSegment);
}

// The corpus rows' normTerm for `metric`, found now (queued on `stream`) unless found for it since the last write
// (resident.h, DeviceResident::normTerms); null for dot, which needs none.
const double* normTermsOf(DeviceResident& corpus, Metric metric, cudaStream_t stream, HeldResources& held) {
  if (metric == Metric::Dot) return nullptr;
  if (!corpus.normTerms) corpus.normTerms = std::make_shared<DeviceAllocation>(corpus.device, sizeof(double) * corpus.rows);
  auto* terms = reinterpret_cast<double*>(corpus.normTerms->floats());
  if (corpus.normsFor != metric || corpus.normsAt != corpus.writes) {
    launchNormTerms(corpus.floats(), corpus.pitch, corpus.rows, corpus.cols, metric, terms, stream);
    corpus.normsFor = metric;
    corpus.normsAt = corpus.writes;
  }
  held.push_back(corpus.normTerms);
  return terms;
}

// Device memory for `count` values of T, held by the work.
template <class T>
T* deviceArray(int device, int64_t count, HeldResources& held) {
  auto memory = std::make_shared<DeviceAllocation>(device, sizeof(T) * static_cast<size_t>(std::max<int64_t>(count, 1)));
  held.push_back(memory);
  return reinterpret_cast<T*>(memory->floats());
}

// Each query's k best of `count` keys at the head of its row of `keys` (the k best so far, then a chunk's
// segments' k best each), back into the head: selected segment by segment, between keys and spare, until k are
// left. spare's rows hold what one round makes of a row of keys.
void keepBest(uint64_t* keys, int64_t keyPitch, int64_t count, uint64_t* spare, int64_t sparePitch, int64_t queries,
              int64_t k, cudaStream_t stream) {
  uint64_t *in = keys, *out = spare;
  int64_t inPitch = keyPitch, outPitch = sparePitch;
  for (; count > k; count = selectSegments(count) * k) {
    launchSelectKeys(in, inPitch, count, queries, k, out, outPitch, stream);
    std::swap(in, out);
    std::swap(inPitch, outPitch);
  }
  if (in != keys)
    checkCuda(cudaMemcpy2DAsync(keys, sizeof(uint64_t) * keyPitch, in, sizeof(uint64_t) * inPitch, sizeof(uint64_t) * k,
                                queries, cudaMemcpyDeviceToDevice, stream),
              "cudaMemcpy2DAsync(search keys)");
}

// The results (count scores, then count rows, at `best` on the device) into the caller's arrays once the work is
// done: through a cached staging buffer copied on the ordered stream, or where none is cached (the JavaScript
// thread must not make one: pools.h), copied from the device afterwards, as a download is.
std::unique_ptr<Work> deliverSearch(OrderedStream& ordered, int device, HeldResources held, const float* best,
                                    int64_t count, float* scores, uint32_t* indices) {
  const auto bytes = static_cast<size_t>(count) * (sizeof(float) + sizeof(uint32_t));
  const size_t scoreBytes = sizeof(float) * static_cast<size_t>(count);
  if (count == 0) return std::make_unique<DeviceWork>(ordered.stream, std::move(held));
  std::shared_ptr<StagingBuffer> staging = bytes <= kStagingBytes ? StagingBuffer::ifCached(bytes) : nullptr;
  if (staging) {
    checkCuda(cudaMemcpyAsync(staging->get(), best, bytes, cudaMemcpyDeviceToHost, ordered.stream), "cudaMemcpyAsync(search results)");
    const auto* staged = static_cast<const char*>(staging->get());
    held.push_back(staging);
    return std::make_unique<DeviceWork>(
        ordered.stream, std::move(held),
        [staged, scoreBytes, scores, indices] {
          std::memcpy(scores, staged, scoreBytes);
          std::memcpy(indices, staged + scoreBytes, scoreBytes);
        },
        static_cast<int64_t>(bytes));
  }
  return std::make_unique<DeviceWork>(
      ordered.stream, std::move(held),
      [device, best, scoreBytes, scores, indices] {
        checkCuda(cudaSetDevice(device), "cudaSetDevice");
        const PooledStream stream(device);
        checkCuda(cudaMemcpyAsync(scores, best, scoreBytes, cudaMemcpyDeviceToHost, stream.get()), "cudaMemcpyAsync(search scores)");
        checkCuda(cudaMemcpyAsync(indices, reinterpret_cast<const char*>(best) + scoreBytes, scoreBytes, cudaMemcpyDeviceToHost, stream.get()),
                  "cudaMemcpyAsync(search rows)");
        checkCuda(cudaStreamSynchronize(stream.get()), "search results");
      },
      static_cast<int64_t>(bytes));
}

}  // namespace

std::unique_ptr<Work> enqueueResidentSearch(const std::shared_ptr<DeviceResident>& corpus,
                                            const std::shared_ptr<DeviceResident>& queries, const SearchRequest& r,
                                            const SearchProductPlanner& planFor, float* scores, uint32_t* indices) {
  OrderedQueue queue(corpus->device);
  OrderedStream& ordered = queue.ordered;
  const cudaStream_t stream = ordered.stream;
  const int device = corpus->device;
  const int64_t m = r.queries, k = r.k, rows = corpus->rows;
  HeldResources held{corpus, queries};
  float* const bestScores = deviceArray<float>(device, 2 * m * k, held);  // m·k scores, then m·k rows
  auto* const bestRows = reinterpret_cast<uint32_t*>(bestScores + m * k);
  if (m == 0) return deliverSearch(ordered, device, std::move(held), bestScores, 0, scores, indices);

  const int64_t groupQueries = std::min(m, kSearchGroupQueries), chunkRows = searchChunkRows(groupQueries, rows);
  const int64_t keyPitch = k + selectSegments(chunkRows) * k, sparePitch = selectSegments(keyPitch) * k;
  auto* const keys = deviceArray<uint64_t>(device, groupQueries * keyPitch, held);
  auto* const spare = deviceArray<uint64_t>(device, groupQueries * sparePitch, held);
  auto* const queryTerms = r.metric == Metric::Dot ? nullptr : deviceArray<double>(device, groupQueries, held);
  const double* const rowTerms = normTermsOf(*corpus, r.metric, stream, held);
  auto chunkScores = std::make_shared<DeviceResident>(device, groupQueries, chunkRows);
  held.push_back(chunkScores);
  const StreamScratch scratch = [&](size_t bytes) { return ordered.scratchOf(device, bytes); };

  for (int64_t q0 = 0; q0 < m; q0 += groupQueries) {
    const int64_t group = std::min(groupQueries, m - q0);
    const DeviceResident groupQueriesRows(*queries, q0, group);
    if (queryTerms) launchNormTerms(groupQueriesRows.floats(), groupQueriesRows.pitch, group, r.dims, r.metric, queryTerms, stream);
    checkCuda(cudaMemset2DAsync(keys, sizeof(uint64_t) * keyPitch, 0, sizeof(uint64_t) * k, group, stream),
              "cudaMemset2DAsync(search keys)");  // no candidates yet
    for (int64_t row0 = 0; row0 < rows; row0 += chunkRows) {
      const int64_t chunk = std::min(chunkRows, rows - row0);
      const GemmShape shape{group, r.dims, chunk, false, true};
      KernelPlan plan = planFor(shape);
      plan.sameSumsPerRow = true;  // a query's scores the same bits beside any others (lib/search-batching.ts)
      const bool checks = classifiesFirst(*plan.row, plan.precision);
      // The whole Matrices' magnitude classes, found once per write, hold those of any part of them.
      const uint32_t* aClasses = checks ? classesOf(*queries, stream, held) : nullptr;
      const uint32_t* bClasses = checks ? classesOf(*corpus, stream, held) : nullptr;
      enqueueGemm(plan, groupQueriesRows, DeviceResident(*corpus, row0, chunk), *chunkScores, shape, stream, scratch, held,
                  aClasses, bClasses);
      const ScoreChunk scored{chunkScores->floats(), chunkScores->pitch, chunk, static_cast<uint32_t>(row0), r.metric, queryTerms,
                              rowTerms, groupQueriesRows.floats(), groupQueriesRows.pitch, corpus->floats(), corpus->pitch, r.dims};
      launchSelectScores(scored, group, k, keys + k, keyPitch, stream);
      keepBest(keys, keyPitch, k + selectSegments(chunk) * k, spare, sparePitch, group, k, stream);
    }
    launchWriteBest(keys, keyPitch, group, k, r.metric, bestScores + q0 * k, bestRows + q0 * k, stream);
  }
  return deliverSearch(ordered, device, std::move(held), bestScores, m * k, scores, indices);
}

// To pageable memory, a matrix that fits one staging buffer comes down into a cached one on the ordered stream and
// is copied out when done; a larger one, or one that finds no staging buffer cached (this runs on the JavaScript
// thread, which must not make one: pools.h), is first copied on the device (its state at this point of the
// program), and that copy comes down through the staged transfer queue on a thread-pool thread.
std::unique_ptr<Work> enqueueResidentDownload(const std::shared_ptr<DeviceResident>& matrix, float* out, bool pinned) {
  OrderedQueue queue(matrix->device);
  OrderedStream& ordered = queue.ordered;
  const int64_t rows = matrix->rows, cols = matrix->cols;
  const int64_t bytes = static_cast<int64_t>(sizeof(float)) * rows * cols;
  auto copy = [&](float* dst, int64_t dstPitch, const DeviceResident& src, cudaMemcpyKind kind) {
    if (rows == 0 || cols == 0) return;
    checkCuda(cudaMemcpy2DAsync(dst, sizeof(float) * dstPitch, src.floats(), sizeof(float) * src.pitch,
                                sizeof(float) * cols, rows, kind, ordered.stream),
              "cudaMemcpy2DAsync(Matrix download)");
  };
  if (pinned) {
    copy(out, cols, *matrix, cudaMemcpyDeviceToHost);
    return std::make_unique<DeviceWork>(ordered.stream, HeldResources{matrix});
  }
  const bool fits = bytes <= static_cast<int64_t>(kStagingBytes);
  if (std::shared_ptr<StagingBuffer> staging = fits ? StagingBuffer::ifCached(static_cast<size_t>(bytes)) : nullptr) {
    auto* staged = static_cast<float*>(staging->get());
    copy(staged, cols, *matrix, cudaMemcpyDeviceToHost);
    return std::make_unique<DeviceWork>(
        ordered.stream, HeldResources{matrix, staging},
        [staged, out, bytes] { parallelCopy(out, staged, static_cast<size_t>(bytes)); }, bytes);
  }
  auto snapshot = std::make_shared<DeviceResident>(matrix->device, rows, cols);
  copy(snapshot->floats(), snapshot->pitch, *matrix, cudaMemcpyDeviceToDevice);
  return std::make_unique<DeviceWork>(
      ordered.stream, HeldResources{snapshot},
      [snapshot, out] {
        checkCuda(cudaSetDevice(snapshot->device), "cudaSetDevice");
        const PooledStream stream(snapshot->device);
        TransferQueue(stream.get()).download(snapshot->data(), out, snapshot->rows, snapshot->cols, false);
        checkCuda(cudaStreamSynchronize(stream.get()), "download");
      },
      bytes);
}

}  // namespace cuda_matmul

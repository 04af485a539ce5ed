// The gathered route (routes.h): small products gathered from host arrays while the device was busy
// (lib/batching.ts), run as one batch on a thread-pool thread. The batch goes in chunks that fit one staging
// buffer each — the table of products, then every A and B, then every C — with one copy up, one grouped Muld
// launch (kernels/grouped_muld.cu) and one copy down per chunk; the host copies into and out of the staging
// buffer are spread over the host-copy team. Two chunks are in flight: the next chunk's inputs are copied into
// the other staging buffer while this one's transfers and kernel run.
#include <cuda_runtime.h>

#include <vector>

#include "cuda/check.h"
#include "cuda/event.h"
#include "cuda/kernels/kernel.h"
#include "cuda/pools.h"
#include "cuda/transfer/host_copy.h"
#include "cuda/transfer/routes.h"

namespace cuda_matmul {
namespace {

// Floats, rounded up so that every matrix in a staging buffer starts 16-byte aligned.
int64_t aligned(int64_t floats) { return (floats + 3) / 4 * 4; }

constexpr int64_t kTableFloats = sizeof(GroupedProduct) / sizeof(float);
constexpr int64_t kChunkFloats = static_cast<int64_t>(kStagingBytes / sizeof(float));

int64_t floatsOf(const SmallProduct& p) {
  return kTableFloats + aligned(p.m * p.k) + aligned(p.k * p.n) + aligned(p.m * p.n);
}

// Products [first, end) laid out in one staging buffer: the table, the inputs, then the outputs from `outputs`.
struct Chunk {
  size_t first = 0, end = 0;
  int64_t outputs = 0, floats = 0;
  int blocks = 0;
  std::vector<GroupedProduct> table;
};

// The chunks of `products`, each as large as one staging buffer allows (a product is at most kGatheredMaxFloats).
std::vector<Chunk> chunksOf(const std::vector<SmallProduct>& products) {
  std::vector<Chunk> chunks;
  size_t first = 0;
  while (first < products.size()) {
    Chunk chunk;
    chunk.first = first;
    int64_t floats = 0;
    chunk.end = first;
    while (chunk.end < products.size() && floats + floatsOf(products[chunk.end]) <= kChunkFloats)
      floats += floatsOf(products[chunk.end++]);
    const size_t count = chunk.end - first;
    int64_t next = aligned(static_cast<int64_t>(count) * kTableFloats);  // inputs after the table
    for (size_t i = first; i < chunk.end; ++i) {
      const SmallProduct& p = products[i];
      GroupedProduct row{};
      row.m = static_cast<int32_t>(p.m), row.k = static_cast<int32_t>(p.k), row.n = static_cast<int32_t>(p.n);
      row.a = next;
      row.b = next += aligned(p.m * p.k);
      next += aligned(p.k * p.n);
      row.firstBlock = chunk.blocks;
      row.blockCols = groupedMuldBlockCols(p.n);
      chunk.blocks += groupedMuldBlocks(p.m, p.n);
      chunk.table.push_back(row);
    }
    chunk.outputs = next;
    for (GroupedProduct& row : chunk.table) {
      row.c = next;
      next += aligned(int64_t{row.m} * row.n);
    }
    chunk.floats = next;
    chunks.push_back(std::move(chunk));
    first = chunks.back().end;
  }
  return chunks;
}

// One of the two chunks in flight: its staging buffer, its device memory, and the event after its copy down.
struct Slot {
  explicit Slot(int device) : memory(device, kStagingBytes) {}
  StagingBuffer staging;
  DeviceAllocation memory;
  Event copiedDown;
};

// The chunk's table, then every A and B, into its staging buffer: thousands of copies of a few kilobytes, spread
// over the host-copy team (one thread alone took most of a 7.5 MiB batch's time, docs/batching.md, "Gathered small products").
void copyIn(const Chunk& chunk, const std::vector<SmallProduct>& products, float* staging) {
  std::vector<CopyPiece> pieces{{staging, chunk.table.data(), chunk.table.size() * sizeof(GroupedProduct)}};
  for (size_t i = chunk.first; i < chunk.end; ++i) {
    const SmallProduct& p = products[i];
    const GroupedProduct& row = chunk.table[i - chunk.first];
    pieces.push_back({staging + row.a, p.a, sizeof(float) * p.m * p.k});
    pieces.push_back({staging + row.b, p.b, sizeof(float) * p.k * p.n});
  }
  parallelCopyPieces(pieces);
}

void copyOut(const Chunk& chunk, const std::vector<SmallProduct>& products, const float* staging) {
  std::vector<CopyPiece> pieces;
  for (size_t i = chunk.first; i < chunk.end; ++i) {
    const SmallProduct& p = products[i];
    pieces.push_back({p.c, staging + chunk.table[i - chunk.first].c, sizeof(float) * p.m * p.n});
  }
  parallelCopyPieces(pieces);
}

void enqueue(const Chunk& chunk, Slot& slot, cudaStream_t stream) {
  auto* staging = static_cast<float*>(slot.staging.get());
  float* device = slot.memory.floats();
  checkCuda(cudaMemcpyAsync(device, staging, sizeof(float) * chunk.outputs, cudaMemcpyHostToDevice, stream),
            "cudaMemcpyAsync(gathered products up)");
  launchGroupedMuld(reinterpret_cast<const GroupedProduct*>(device), static_cast<int>(chunk.table.size()), chunk.blocks,
                    device, stream);
  checkCuda(cudaGetLastError(), "grouped Muld");
  checkCuda(cudaMemcpyAsync(staging + chunk.outputs, device + chunk.outputs, sizeof(float) * (chunk.floats - chunk.outputs),
                            cudaMemcpyDeviceToHost, stream),
            "cudaMemcpyAsync(gathered products down)");
  slot.copiedDown.record(stream);
}

}  // namespace

void runGathered(const std::vector<SmallProduct>& products, int device) {
  checkCuda(cudaSetDevice(device), "cudaSetDevice");
  const std::vector<Chunk> chunks = chunksOf(products);
  if (chunks.empty()) return;
  Slot slots[2] = {Slot(device), Slot(device)};
  const PooledStream stream(device);  // declared last: its destructor waits for the work that uses the slots
  for (size_t i = 0; i < chunks.size(); ++i) {
    Slot& slot = slots[i % 2];
    copyIn(chunks[i], products, static_cast<float*>(slot.staging.get()));  // the other slot's chunk runs meanwhile
    enqueue(chunks[i], slot, stream.get());
    if (i == 0) continue;
    Slot& previous = slots[(i - 1) % 2];
    previous.copiedDown.synchronize("gathered products");
    copyOut(chunks[i - 1], products, static_cast<const float*>(previous.staging.get()));
  }
  Slot& last = slots[(chunks.size() - 1) % 2];
  last.copiedDown.synchronize("gathered products");
  copyOut(chunks.back(), products, static_cast<const float*>(last.staging.get()));
}

}  // namespace cuda_matmul

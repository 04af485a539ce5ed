#include "cuda/transfer/transfer_queue.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "cuda/check.h"
#include "cuda/transfer/host_copy.h"

namespace cuda_matmul {
namespace {

// Three staging buffers: one being filled by the host, one being copied by DMA, one spare so neither waits.
constexpr size_t kSlots = 3;

}  // namespace

// A staging buffer and the event recorded after the DMA that last used it.
struct TransferQueue::Slot {
  std::optional<StagingBuffer> buffer;
  cudaEvent_t done = nullptr;
  bool pending = false;

  // Its buffer, made (or remade) to hold `bytes`; the last DMA from it has been waited for.
  float* floats(size_t bytes) {
    if (!buffer || buffer->bytes() < stagingSizeFor(bytes)) buffer.emplace(bytes);
    return static_cast<float*>(buffer->get());
  }
  void record(cudaStream_t stream) {
    if (!done) checkCuda(cudaEventCreateWithFlags(&done, cudaEventDisableTiming), "cudaEventCreate");
    checkCuda(cudaEventRecord(done, stream), "cudaEventRecord");
    pending = true;
  }
  void wait() {
    if (pending) checkCuda(cudaEventSynchronize(done), "copy through staging");
    pending = false;
  }
};

namespace {

// A block of a matrix that fits one staging buffer: whole rows, or a segment of one row that alone does not.
struct Piece {
  int64_t row, col, rows, cols;
};

// The staging size for a rows×cols transfer: a small buffer for one that fits it, else pieces of the large ones.
size_t stagingBytesOf(int64_t rows, int64_t cols) { return stagingSizeFor(sizeof(float) * rows * cols); }

std::vector<Piece> piecesOf(int64_t rows, int64_t cols) {
  std::vector<Piece> pieces;
  const int64_t perBuffer = static_cast<int64_t>(stagingBytesOf(rows, cols) / sizeof(float));
  if (cols <= perBuffer) {
    const int64_t rowsPer = perBuffer / cols;
    for (int64_t r = 0; r < rows; r += rowsPer) pieces.push_back({r, 0, std::min(rowsPer, rows - r), cols});
  } else {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; c += perBuffer) pieces.push_back({r, c, 1, std::min(perBuffer, cols - c)});
  }
  return pieces;
}

void copy2D(float* dst, int64_t dstPitch, const float* src, int64_t srcPitch, int64_t rows, int64_t cols,
            cudaMemcpyKind kind, cudaStream_t stream, const char* what) {
  if (dstPitch == cols && srcPitch == cols)  // contiguous on both sides: one linear copy
    return checkCuda(cudaMemcpyAsync(dst, src, sizeof(float) * rows * cols, kind, stream), what);
  checkCuda(cudaMemcpy2DAsync(dst, sizeof(float) * dstPitch, src, sizeof(float) * srcPitch, sizeof(float) * cols, rows,
                              kind, stream),
            what);
}

}  // namespace

TransferQueue::TransferQueue(cudaStream_t stream) : stream_(stream), slots_(new Slot[kSlots]) {}

TransferQueue::~TransferQueue() {
  for (size_t i = 0; i < kSlots; ++i) {
    Slot& s = slots_[i];
    if (s.pending) cudaEventSynchronize(s.done);  // the buffer goes back to the pool only once DMA is done
    if (s.done) cudaEventDestroy(s.done);
  }
  cudaGetLastError();
}

TransferQueue::Slot& TransferQueue::slot(size_t index) { return slots_[index % kSlots]; }

void TransferQueue::upload(const HostMatrix& host, DeviceRows device) {
  if (host.rows == 0 || host.cols == 0) return;
  if (host.pinned)
    return copy2D(device.data, device.pitch, host.data, host.cols, host.rows, host.cols, cudaMemcpyHostToDevice,
                  stream_, "cudaMemcpy2DAsync(to device)");
  const size_t staging = stagingBytesOf(host.rows, host.cols);
  for (const Piece& p : piecesOf(host.rows, host.cols)) {
    Slot& s = slot(nextSlot_++);
    s.wait();
    float* const buffer = s.floats(staging);
    parallelCopyRows(buffer, sizeof(float) * p.cols, host.data + p.row * host.cols + p.col, sizeof(float) * host.cols,
                     sizeof(float) * p.cols, p.rows);
    copy2D(device.data + p.row * device.pitch + p.col, device.pitch, buffer, p.cols, p.rows, p.cols,
           cudaMemcpyHostToDevice, stream_, "cudaMemcpy2DAsync(staging to device)");
    s.record(stream_);
  }
}

void TransferQueue::download(DeviceRows device, float* host, int64_t rows, int64_t cols, bool pinned, const Scale* scale) {
  if (rows == 0 || cols == 0) return;
  if (pinned)
    return copy2D(host, cols, device.data, device.pitch, rows, cols, cudaMemcpyDeviceToHost, stream_,
                  "cudaMemcpy2DAsync(to host)");
  const std::vector<Piece> pieces = piecesOf(rows, cols);
  const size_t staging = stagingBytesOf(rows, cols);
  auto startPiece = [&](size_t i) {
    const Piece& p = pieces[i];
    Slot& s = slot(i);
    s.wait();
    copy2D(s.floats(staging), p.cols, device.data + p.row * device.pitch + p.col, device.pitch, p.rows, p.cols,
           cudaMemcpyDeviceToHost, stream_, "cudaMemcpy2DAsync(device to staging)");
    s.record(stream_);
  };
  // Keep up to kSlots pieces in flight; copy each out to the host as soon as its DMA has landed.
  size_t started = 0;
  for (size_t i = 0; i < pieces.size(); ++i) {
    for (; started < pieces.size() && started < i + kSlots; ++started) startPiece(started);
    const Piece& p = pieces[i];
    Slot& s = slot(i);
    s.wait();
    float* const out = host + p.row * cols + p.col;
    if (scale)
      parallelCombineRows(out, cols, s.floats(staging), p.cols, p.cols, p.rows, scale->alpha, scale->beta);
    else
      parallelCopyRows(out, sizeof(float) * cols, s.floats(staging), sizeof(float) * p.cols, sizeof(float) * p.cols, p.rows);
  }
}

}  // namespace cuda_matmul

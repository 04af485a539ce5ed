// The CPU backend (core/backend.h): every product by cpuGemm (gemm.h), gemm's transposes and α, β around it.
// Matrices live in host memory; each keeps the completion of its last write and of the reads issued since, and
// an operation waits for what it must follow (a read: the last write; a write: that and the reads), so
// operations on Matrices run in the order they are issued, as on the CUDA backend's ordered stream.
#include <algorithm>
#include <chrono>
#include <functional>
#include <future>
#include <mutex>
#include <vector>

#include "core/call_abort.h"
#include "core/errors.h"
#include "core/matrix_data.h"
#include "core/scaled_sum.h"
#include "cpu/gemm.h"
#include "cpu/search.h"

namespace cuda_matmul {
namespace {

// One CPU gemm: c = α·op(a)·op(b) + β·c.
void gemmStep(const float* a, const float* b, float* c, const GemmShape& s, CpuTeam team) {
  std::vector<float> aT, bT, product;
  if (s.transA) {
    aT.resize(static_cast<size_t>(s.m * s.k));
    cpuTranspose(a, s.k, s.m, aT.data());
    a = aT.data();
  }
  if (s.transB) {
    bT.resize(static_cast<size_t>(s.k * s.n));
    cpuTranspose(b, s.n, s.k, bT.data());
    b = bT.data();
  }
  if (s.unscaled()) return cpuGemm(a, b, c, s.m, s.k, s.n, team);
  product.resize(static_cast<size_t>(s.m * s.n));
  cpuGemm(a, b, product.data(), s.m, s.k, s.n, team);
  scaledSumInto(c, product.data(), static_cast<size_t>(s.m * s.n), s.alpha, s.beta);
}

using Completion = std::shared_future<void>;

// A Matrix's elements and its place in program order. Operations are issued on the JavaScript thread (which
// alone touches lastWrite and readsSince); they run on thread-pool threads, in the order the pool takes them
// (first in, first out), so an operation's predecessors have always started before it waits for them.
class HostMatrix : public MatrixStorage {
 public:
  explicit HostMatrix(std::vector<float> elements) : size_(elements.size()), elements_(std::move(elements)) {}
  explicit HostMatrix(size_t size) : size_(size) {}
  // The elements, allocated (zeroed) on first use: a new product's result is sized by the operation that writes
  // it, on a thread-pool thread, not by the JavaScript thread that issues it.
  float* data() {
    if (elements_.size() != size_) elements_.resize(size_);
    return elements_.data();
  }
  size_t size() const { return size_; }
  Completion lastWrite;
  std::vector<Completion> readsSince;

 private:
  size_t size_;
  std::vector<float> elements_;
};

HostMatrix& hostOf(const MatrixData& matrix) { return static_cast<HostMatrix&>(*matrix.storage); }

// Work issued on Matrices: it waits for its predecessors, runs, then marks itself complete for its successors
// (also when it fails, or is dropped at teardown without running: a broken promise completes the future too).
class OrderedWork : public Work {
 public:
  OrderedWork(std::vector<std::shared_ptr<MatrixStorage>> held, std::function<void()> run)
      : held_(std::move(held)), run_(std::move(run)), completion_(done_.get_future().share()) {}

  // Records this work after `reads` and `writes`' predecessors. JavaScript thread.
  void order(const std::vector<HostMatrix*>& reads, const std::vector<HostMatrix*>& writes) {
    for (HostMatrix* m : reads)
      if (m->lastWrite.valid()) after_.push_back(m->lastWrite);
    for (HostMatrix* m : writes) {
      if (m->lastWrite.valid()) after_.push_back(m->lastWrite);
      after_.insert(after_.end(), m->readsSince.begin(), m->readsSince.end());
    }
    for (HostMatrix* m : reads) remember(m->readsSince);
    for (HostMatrix* m : writes) {
      m->lastWrite = completion_;
      m->readsSince.clear();
    }
  }

  // Makes this work a write into `written` that its abort may withdraw (core/backend.h, enqueueGemm).
  void withdrawable(HostMatrix& written, std::shared_ptr<CallAbort> abort) {
    written_ = &written;
    abort_ = std::move(abort);
  }

  void wait() override {
    for (const Completion& previous : after_) previous.wait();
    try {
      abort_ ? runWithdrawable() : run_();
    } catch (...) {
      done_.set_value();
      throw;
    }
    done_.set_value();
  }

  bool committed() const override { return committed_; }

 private:
  // Nothing if the abort came first; else the write, with the elements it overwrites kept aside and put back if
  // the abort comes before it ends (a product stops at its next k-slice for it: cpu/gemm.cpp).
  void runWithdrawable() {
    if (abort_->requested()) throw abortedError();
    float* elements = written_->data();
    const std::vector<float> kept(elements, elements + written_->size());
    try {
      run_();
    } catch (...) {
      if (!abort_->requested()) throw;
    }
    if (abort_->requested()) {
      std::copy(kept.begin(), kept.end(), elements);
      throw abortedError();
    }
    committed_ = true;
  }

  // Adds this work to a matrix's reads, dropping those already complete so the list stays short.
  void remember(std::vector<Completion>& reads) {
    std::erase_if(reads, [](const Completion& c) { return c.wait_for(std::chrono::seconds(0)) == std::future_status::ready; });
    reads.push_back(completion_);
  }

  std::vector<std::shared_ptr<MatrixStorage>> held_;
  std::function<void()> run_;
  std::promise<void> done_;
  Completion completion_;
  std::vector<Completion> after_;
  HostMatrix* written_ = nullptr;  // with abort_: a withdrawable write
  std::shared_ptr<CallAbort> abort_;
  bool committed_ = false;
};

class CpuBackend final : public ComputeBackend {
 public:
  Backend kind() const override { return Backend::Cpu; }
  std::string unusableReason() const override { return ""; }

  void check(const Choice& choice) const override {
    if (choice.kernel != Kernel::Auto)
      throw MatmulError(ErrorKind::Range, std::string("kernel: '") + kernelOption(choice.kernel).name +
                                              "' is a CUDA kernel and cannot run on backend 'cpu'");
  }
  // Host memory: bad_alloc says so.
  void checkRoom(const GemmShape&, int, const std::function<std::string()>&) const override {}

  // fp32 whatever the precision asked: 'tf32' only permits less. A small request runs on the JavaScript thread
  // at once (core/request.h, runsOnCaller), on that thread alone.
  std::unique_ptr<Work> startGemm(const GemmRequest& r) override {
    const bool onCaller = runsOnCaller(r);
    const CpuTeam team = onCaller ? CpuTeam::CallerOnly : CpuTeam::Leased;
    return std::make_unique<HostWork>(
        [r, team] {
          for (int64_t i = 0; i < r.batch; ++i) gemmStep(r.aOf(i), r.bOf(i), r.cOf(i), r.shape, team);
        },
        onCaller);
  }

  std::unique_ptr<Work> startGathered(std::vector<SmallProduct> products, int) override {
    return std::make_unique<HostWork>([products = std::move(products)] {
      for (const SmallProduct& p : products) {
        if (p.k == 0)
          std::fill(p.c, p.c + p.m * p.n, 0.0f);
        else
          gemmStep(p.a, p.b, p.c, GemmShape{p.m, p.k, p.n}, CpuTeam::Leased);
      }
    });
  }

  std::shared_ptr<MatrixStorage> upload(const float* data, int64_t rows, int64_t cols, int, bool) override {
    return std::make_shared<HostMatrix>(std::vector<float>(data, data + rows * cols));
  }
  std::shared_ptr<MatrixStorage> allocate(int64_t rows, int64_t cols, int) override {
    return std::make_shared<HostMatrix>(static_cast<size_t>(rows * cols));
  }

  std::unique_ptr<Work> enqueueGemm(const MatrixData& a, const MatrixData& b, const MatrixData& c, const GemmShape& s,
                                    const RowBatch& batch, const Choice&, std::shared_ptr<CallAbort> withdrawable) override {
    HostMatrix &ha = hostOf(a), &hb = hostOf(b), &hc = hostOf(c);
    const int64_t colsA = a.cols, colsB = b.cols, colsC = c.cols;
    auto work = std::make_unique<OrderedWork>(
        std::vector<std::shared_ptr<MatrixStorage>>{a.storage, b.storage, c.storage}, [&ha, &hb, &hc, s, batch, colsA, colsB, colsC] {
          for (int64_t i = 0; i < batch.count; ++i)
            gemmStep(ha.data() + i * batch.strideA * colsA, hb.data() + i * batch.strideB * colsB,
                     hc.data() + i * batch.strideC * colsC, s, CpuTeam::Leased);
        });
    work->order({&ha, &hb}, {&hc});
    if (withdrawable) work->withdrawable(hc, std::move(withdrawable));
    return work;
  }

  std::unique_ptr<Work> enqueueDownload(const MatrixData& matrix, float* out, bool) override {
    HostMatrix& host = hostOf(matrix);
    const size_t count = static_cast<size_t>(matrix.rows * matrix.cols);
    auto work = std::make_unique<OrderedWork>(std::vector<std::shared_ptr<MatrixStorage>>{matrix.storage},
                                              [&host, out, count] { std::copy_n(host.data(), count, out); });
    work->order({&host}, {});
    return work;
  }

  std::unique_ptr<Work> enqueueSearch(const MatrixData& corpus, const MatrixData& queries, const SearchRequest& r,
                                      float* scores, uint32_t* indices) override {
    HostMatrix &hc = hostOf(corpus), &hq = hostOf(queries);
    const int64_t rows = corpus.rows;
    auto work = std::make_unique<OrderedWork>(std::vector<std::shared_ptr<MatrixStorage>>{corpus.storage, queries.storage},
                                              [&hc, &hq, rows, r, scores, indices] {
                                                cpuSearch(hc.data(), rows, hq.data(), r, scores, indices);
                                              });
    work->order({&hc, &hq}, {});
    return work;
  }
};

}  // namespace

ComputeBackend& cpuBackend() {
  static auto* backend = new CpuBackend();
  return *backend;
}

}  // namespace cuda_matmul

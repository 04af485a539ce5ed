// The CUDA backend of a CPU-only build (no nvcc at build time): says why it cannot run, and never runs. The plan
// (core/plan.cpp) refuses every call on it with that reason first, so only its reporting functions are reached.
#include "core/backend.h"
#include "core/errors.h"

namespace cuda_matmul {
namespace {

class AbsentCuda final : public ComputeBackend {
 public:
  Backend kind() const override { return Backend::Cuda; }
  std::string unusableReason() const override {
    return "this build of cuda-matmul has no CUDA support (nvcc was not found when it was compiled)";
  }
  // Every device number is one this build does not have.
  void check(const Choice& choice) const override {
    throw MatmulError(ErrorKind::Range, "device: " + std::to_string(choice.device) + " does not exist; 0 CUDA device(s) found");
  }
  void checkRoom(const GemmShape&, int, const std::function<std::string()>&) const override { unavailable(); }
  std::unique_ptr<Work> startGemm(const GemmRequest&) override { unavailable(); }
  std::unique_ptr<Work> startGathered(std::vector<SmallProduct>, int) override { unavailable(); }
  std::shared_ptr<MatrixStorage> upload(const float*, int64_t, int64_t, int, bool) override { unavailable(); }
  std::shared_ptr<MatrixStorage> allocate(int64_t, int64_t, int) override { unavailable(); }
  std::unique_ptr<Work> enqueueGemm(const MatrixData&, const MatrixData&, const MatrixData&, const GemmShape&,
                                    const RowBatch&, const Choice&, std::shared_ptr<CallAbort>) override {
    unavailable();
  }
  std::unique_ptr<Work> enqueueDownload(const MatrixData&, float*, bool) override { unavailable(); }
  std::unique_ptr<Work> enqueueSearch(const MatrixData&, const MatrixData&, const SearchRequest&, float*,
                                      uint32_t*) override {
    unavailable();
  }

 private:
  [[noreturn]] void unavailable() const { throw MatmulError(ErrorKind::Failure, unusableReason(), "ERR_CUDA_UNAVAILABLE"); }
};

}  // namespace

ComputeBackend& cudaBackend() {
  static auto* backend = new AbsentCuda();
  return *backend;
}

}  // namespace cuda_matmul

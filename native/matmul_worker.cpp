#include "matmul_worker.h"

#include <exception>

#include "js_errors.h"
#include "plan.h"

namespace cuda_matmul {
namespace {

class MatmulWorker : public Napi::AsyncWorker {
 public:
  MatmulWorker(Napi::Env env, MatmulCall call)
      : Napi::AsyncWorker(env, "cuda-matmul:matmul"),
        deferred_(Napi::Promise::Deferred::New(env)),
        request_(call.request),
        a_(Napi::Persistent(call.a)),
        b_(Napi::Persistent(call.b)),
        out_(Napi::Persistent(call.out)),
        uses_{std::move(call.uses[0]), std::move(call.uses[1]), std::move(call.uses[2])} {}

  Napi::Promise promise() const { return deferred_.Promise(); }

 protected:
  void Execute() override {
    try {
      runMatmul(request_);
    } catch (const std::exception& e) {
      error_ = std::current_exception();  // kept whole, so OnError can rebuild its TypeError/RangeError/code
      SetError(e.what());
    }
  }

  void OnOK() override { deferred_.Resolve(out_.Value()); }

  void OnError(const Napi::Error&) override {
    try {
      std::rethrow_exception(error_);
    } catch (const std::exception& e) {
      deferred_.Reject(toJsError(Env(), e).Value());
    }
  }

 private:
  Napi::Promise::Deferred deferred_;
  MatmulRequest request_;
  Napi::Reference<Napi::Float32Array> a_, b_, out_;
  HostUse uses_[3];  // released with the worker, after the promise has settled
  std::exception_ptr error_;
};

}  // namespace

Napi::Promise queueMatmul(Napi::Env env, MatmulCall call) {
  auto* worker = new MatmulWorker(env, std::move(call));  // deletes itself once it has settled
  Napi::Promise promise = worker->promise();
  worker->Queue();
  return promise;
}

}  // namespace cuda_matmul

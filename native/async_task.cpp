#include "async_task.h"

#include <exception>

#include "js_errors.h"

namespace cuda_matmul {
namespace {

class Task : public Napi::AsyncWorker {
 public:
  Task(Napi::Env env, const char* name, std::function<void()> work, std::function<Napi::Value(Napi::Env)> settle)
      : Napi::AsyncWorker(env, name),
        deferred_(Napi::Promise::Deferred::New(env)),
        work_(std::move(work)),
        settle_(std::move(settle)) {}

  Napi::Promise promise() const { return deferred_.Promise(); }

 protected:
  void Execute() override {
    try {
      work_();
    } catch (const std::exception& e) {
      error_ = std::current_exception();  // kept whole, so OnError can rebuild its TypeError/RangeError/code
      SetError(e.what());
    }
  }

  void OnOK() override {
    try {
      deferred_.Resolve(settle_(Env()));
    } catch (const Napi::Error& e) {
      deferred_.Reject(e.Value());
    } catch (const std::exception& e) {
      deferred_.Reject(toJsError(Env(), e).Value());
    }
  }

  void OnError(const Napi::Error&) override {
    try {
      std::rethrow_exception(error_);
    } catch (const std::exception& e) {
      deferred_.Reject(toJsError(Env(), e).Value());
    }
  }

 private:
  Napi::Promise::Deferred deferred_;
  std::function<void()> work_;
  std::function<Napi::Value(Napi::Env)> settle_;
  std::exception_ptr error_;
};

}  // namespace

Napi::Promise queueTask(Napi::Env env, const char* name, std::function<void()> work,
                        std::function<Napi::Value(Napi::Env)> settle) {
  auto* task = new Task(env, name, std::move(work), std::move(settle));  // deletes itself once settled
  Napi::Promise promise = task->promise();
  task->Queue();
  return promise;
}

}  // namespace cuda_matmul

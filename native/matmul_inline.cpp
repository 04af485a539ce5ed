#include "matmul_inline.h"

#include <chrono>
#include <exception>
#include <memory>
#include <vector>

#include "async_task.h"
#include "cuda_backend.h"
#include "errors.h"
#include "js_errors.h"
#include "matmul_worker.h"
#include "plan.h"

namespace cuda_matmul {
namespace {

using Clock = std::chrono::steady_clock;

// A product still running after this long waits for the GPU behind other work; the thread pool waits for it
// instead, so the event loop never spins for long.
constexpr auto kSpin = std::chrono::microseconds(500);

// Each call in flight holds a page-locked staging buffer (8 MiB, pooled): past this many at once, calls take
// the thread-pool path, whose staging is bounded by its threads.
constexpr size_t kMaxInFlight = 4;

// A and B are copied into the product's staging buffer when it starts; only `out` is held until it is done.
struct InlineCall {
  std::shared_ptr<InlineProduct> product;
  Napi::Promise::Deferred deferred;
  std::shared_ptr<HeldArray> out;
  Clock::time_point started;
};

// Copies the product's result into `out` and returns it, unless `out` was detached (transferred) meanwhile.
Napi::Value finishInto(const InlineProduct& product, const HeldArray& out) {
  Napi::Value delivered = deliveredOutput(out, "out");
  cudaInlineFinish(product, out.data());
  return delivered;
}

// The calls in flight on one JavaScript thread (each Node environment has its own), polled from setImmediate
// callbacks while any is in flight: a pending immediate makes the event loop poll for I/O without sleeping,
// keeps it alive, and Node runs the Promise reactions after each callback.
class Poller {
 public:
  static Poller& of(Napi::Env env) {
    thread_local Poller* poller = nullptr;
    if (!poller) {
      poller = new Poller(env);
      env.AddCleanupHook([] {
        delete poller;
        poller = nullptr;
      });
    }
    return *poller;
  }

  bool full() const { return calls_.size() >= kMaxInFlight; }

  void add(std::unique_ptr<InlineCall> call) {
    if (calls_.empty()) scheduleAnother();
    calls_.push_back(std::move(call));
  }

  // The environment is going away (a worker thread ends): the products still running are waited for, so
  // that their memory goes back to the pools with no kernel still writing it.
  ~Poller() {
    for (auto& call : calls_) {
      try {
        cudaInlineWait(*call->product);
      } catch (const std::exception&) {
        // nobody is left to tell
      }
    }
  }

 private:
  explicit Poller(Napi::Env env)
      : env_(env),
        setImmediate_(Napi::Persistent(env.Global().Get("setImmediate").As<Napi::Function>())),
        poll_(Napi::Persistent(Napi::Function::New(env, [](const Napi::CallbackInfo& info) {
          static_cast<Poller*>(info.Data())->poll();
        }, "cuda-matmul:poll", this))) {}

  void scheduleAnother() { setImmediate_.Call({poll_.Value()}); }

  void poll() {
    std::vector<std::unique_ptr<InlineCall>> pending;
    for (auto& call : calls_)
      if (!settleIfDone(*call)) pending.push_back(std::move(call));
    calls_ = std::move(pending);
    if (!calls_.empty()) scheduleAnother();
  }

  // Resolves or rejects the call once its product is done, or hands it to the thread pool once it has spun
  // for kSpin; returns whether the call is off this poller's hands.
  bool settleIfDone(InlineCall& call) {
    try {
      if (cudaInlineDone(*call.product)) {
        call.deferred.Resolve(finishInto(*call.product, *call.out));
        return true;
      }
      if (Clock::now() - call.started < kSpin) return false;
      call.deferred.Resolve(queueTask(
          env_, "cuda-matmul:matmul", [product = call.product] { cudaInlineWait(*product); },
          [product = call.product, out = call.out](Napi::Env) { return finishInto(*product, *out); }));
    } catch (const std::exception& e) {
      call.deferred.Reject(toJsError(env_, e).Value());
    }
    return true;
  }

  Napi::Env env_;
  Napi::FunctionReference setImmediate_, poll_;
  std::vector<std::unique_ptr<InlineCall>> calls_;
};

}  // namespace

std::optional<Napi::Promise> startInlineMatmul(Napi::Env env, MatmulCall& call) {
  std::optional<KernelPlan> plan;
  try {
    plan = planInline(call.request);
  } catch (const std::exception&) {
    return std::nullopt;  // the thread-pool path reports the same error, asynchronously
  }
  if (!plan || Poller::of(env).full()) return std::nullopt;
  auto inlineCall = std::make_unique<InlineCall>(InlineCall{
      nullptr, Napi::Promise::Deferred::New(env), std::make_shared<HeldArray>(std::move(call.out)), Clock::now()});
  Napi::Promise promise = inlineCall->deferred.Promise();
  try {
    inlineCall->product = cudaStartInline(*plan, call.request);
  } catch (const std::exception& e) {
    inlineCall->deferred.Reject(toJsError(env, e).Value());
    return promise;
  }
  Poller::of(env).add(std::move(inlineCall));
  return promise;
}

}  // namespace cuda_matmul

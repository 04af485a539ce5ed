#include "binding/completion.h"

#include <chrono>
#include <exception>
#include <optional>
#include <vector>

#include "binding/async_task.h"
#include "binding/js_errors.h"
#include "core/call_abort.h"

namespace cuda_matmul {
namespace {

using Clock = std::chrono::steady_clock;

// Polling stops once no call in flight has ended for this long: the rest wait on the thread pool, so the event
// loop never spins for long on work stuck behind other work on the GPU. Long enough for a product that moves five
// gigabytes (512 queries against a 1 000 000 × 768 corpus in tf32, its 3 GB read and 2 GB of scores written: 2.4 ms
// on an H100): handed to the pool, its Promise settled 0.1–0.15 ms after the kernel ended, against a few
// microseconds polled (docs/transfers.md, "The inline route").
constexpr auto kSpin = std::chrono::microseconds(5000);
// Host copies after the work up to this size run on the JavaScript thread (64 KiB: a few microseconds).
constexpr int64_t kInlineFinishBytes = 64 * 1024;

struct Call {
  const char* name;
  std::shared_ptr<Work> work;  // shared with a thread-pool task once handed over
  std::function<Napi::Value(Napi::Env)> settle;
  std::shared_ptr<CallAbort> abort;  // null without a signal
};

// Whether the call, its work done, is to reject for its abort instead of settling (completion.h).
bool withdrawn(const std::shared_ptr<CallAbort>& abort, const Work& work) {
  return abort && abort->requested() && !work.committed();
}

// A call being polled: its Promise is settled by the poller (or adopts the thread pool's, once handed over).
struct PolledCall {
  Call call;
  Napi::Promise::Deferred deferred;
};

// The host's part of a call whose work is done, on the JavaScript thread: its copies, then its value. Throws what
// they throw.
Napi::Value finishHere(Napi::Env env, Call& call) {
  if (call.abort) call.abort->close();  // settled from here on: a later request does nothing
  if (withdrawn(call.abort, *call.work)) throw abortedError();
  call.work->finish();
  Napi::Value value = call.settle(env);
  call.work.reset();  // what the work held goes back now
  return value;
}

// Settles `deferred` with what `produce` returns (nothing: leaves it pending), or rejects it with what it throws;
// returns whether it is settled.
template <typename Produce>
bool settleWith(Napi::Env env, const Napi::Promise::Deferred& deferred, Produce&& produce) {
  try {
    const std::optional<Napi::Value> value = produce();
    if (!value) return false;
    deferred.Resolve(*value);
  } catch (const Napi::Error& e) {
    deferred.Reject(e.Value());
  } catch (const std::exception& e) {
    deferred.Reject(toJsError(env, e).Value());
  }
  return true;
}

// Hands the call to the thread pool: `waitFirst` when its work is not known to be done yet.
Napi::Promise onThreadPool(Napi::Env env, const Call& call, bool waitFirst) {
  return queueTask(
      env, call.name,
      [work = call.work, waitFirst, abort = call.abort] {
        if (waitFirst) work->wait();
        if (!withdrawn(abort, *work)) work->finish();
      },
      [work = call.work, settle = call.settle, abort = call.abort](Napi::Env env) mutable {
        if (withdrawn(abort, *work)) throw abortedError();
        Napi::Value value = settle(env);
        work.reset();  // what the work held goes back now, on the JavaScript thread
        return value;
      },
      // Work not yet started may be dropped for its abort; device work in flight decides when it ends.
      call.work->pollable() ? nullptr : call.abort);
}

// The calls in flight on one JavaScript thread (each Node environment has its own).
class Poller {
 public:
  static Poller& of(Napi::Env env) {
    thread_local Poller* poller = nullptr;
    if (!poller) {
      poller = new Poller(env);
      env.AddCleanupHook([] {
        delete poller;  // each Work still in flight waits for its device work as it is destroyed
        poller = nullptr;
      });
    }
    return *poller;
  }

  void add(PolledCall call) {
    if (calls_.empty()) scheduleAnother();
    lastProgress_ = Clock::now();
    calls_.push_back(std::move(call));
  }

 private:
  explicit Poller(Napi::Env env)
      : env_(env),
        setImmediate_(Napi::Persistent(env.Global().Get("setImmediate").As<Napi::Function>())),
        poll_(Napi::Persistent(Napi::Function::New(
            env, [](const Napi::CallbackInfo& info) { static_cast<Poller*>(info.Data())->poll(); }, "cuda-matmul:poll",
            this))) {}

  void scheduleAnother() { setImmediate_.Call({poll_.Value()}); }

  void poll() {
    const bool stalled = Clock::now() - lastProgress_ > kSpin;
    std::vector<PolledCall> pending;
    for (PolledCall& call : calls_) {
      if (!settleIfDone(call, stalled)) pending.push_back(std::move(call));
    }
    if (pending.size() < calls_.size()) lastProgress_ = Clock::now();
    calls_ = std::move(pending);
    if (!calls_.empty()) scheduleAnother();
  }

  // Settles the call once its work is done, or hands it to the thread pool; returns whether it is off this
  // poller's hands.
  bool settleIfDone(PolledCall& polled, bool stalled) {
    Call& call = polled.call;
    return settleWith(env_, polled.deferred, [&]() -> std::optional<Napi::Value> {
      if (!call.work->done()) {
        if (!stalled) return std::nullopt;
        return onThreadPool(env_, call, true);
      }
      if (call.work->finishBytes() > kInlineFinishBytes) return onThreadPool(env_, call, false);
      return finishHere(env_, call);
    });
  }

  Napi::Env env_;
  Napi::FunctionReference setImmediate_, poll_;
  std::vector<PolledCall> calls_;
  Clock::time_point lastProgress_ = Clock::now();
};

}  // namespace

Napi::Promise complete(Napi::Env env, const char* name, std::unique_ptr<Work> work,
                       std::function<Napi::Value(Napi::Env)> settle, std::shared_ptr<CallAbort> abort) {
  Call call{name, std::move(work), std::move(settle), std::move(abort)};
  if (call.work->runsOnCaller()) {
    const Napi::Promise::Deferred deferred = Napi::Promise::Deferred::New(env);
    settleWith(env, deferred, [&]() -> std::optional<Napi::Value> {
      call.work->wait();
      return finishHere(env, call);
    });
    return deferred.Promise();
  }
  if (!call.work->pollable()) return onThreadPool(env, call, true);
  PolledCall polled{std::move(call), Napi::Promise::Deferred::New(env)};
  Napi::Promise promise = polled.deferred.Promise();
  Poller::of(env).add(std::move(polled));
  return promise;
}

}  // namespace cuda_matmul

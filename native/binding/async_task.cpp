#include "binding/async_task.h"

#include <atomic>
#include <deque>
#include <exception>
#include <string>
#include <unordered_set>

#include "binding/environment.h"
#include "binding/js_errors.h"
#include "core/call_abort.h"
#include "core/core_budget.h"
#include "core/environment.h"

namespace cuda_matmul {
namespace {

// How many tasks of one environment the thread pool holds at once: enough that its threads never wait for the
// JavaScript thread to hand them the next one (with only UV_THREADPOOL_SIZE, 1000 concurrent small CPU
// products ran at 27 600 calls/s instead of 59 000), few enough that dropping the rest at teardown is quick.
// Tasks handed over but not started when the environment ends are cancelled, or skip their work (execute).
size_t maxSubmitted() {
  static const size_t size = static_cast<size_t>(256 * environmentCount("UV_THREADPOOL_SIZE", 1, 1024, 4));
  return size;
}

}  // namespace

class Task;

class TaskQueue : public std::enable_shared_from_this<TaskQueue> {
 public:
  void add(Task* task);
  void completed(Task* task);
  void stop();
  // Drops the waiting tasks whose abort is requested, and cancels those handed over and not yet started.
  void dropAborted();
  bool stopping() const { return stopping_.load(std::memory_order_acquire); }
  const std::atomic<bool>& stopFlag() const { return stopping_; }

 private:
  void pump();

  std::atomic<bool> stopping_{false};
  std::deque<Task*> waiting_;              // not yet handed to the thread pool
  std::unordered_set<Task*> submitted_;    // handed to it, not yet completed
};

class Task {
 public:
  Task(napi_env env, std::shared_ptr<TaskQueue> queue, std::function<void()> work,
       std::function<Napi::Value(Napi::Env)> settle, std::shared_ptr<CallAbort> abort)
      : env_(env), queue_(std::move(queue)), work_(std::move(work)), settle_(std::move(settle)), abort_(std::move(abort)) {}

  ~Task() {
    if (asyncWork_) napi_delete_async_work(env_, asyncWork_);
    if (abort_) abort_->close();
  }

  bool aborted() const { return abort_ && abort_->requested(); }
  // Rejects an aborted task that no thread has started; the caller deletes it.
  void rejectAborted() { rejectWith(abortedError()); }

  // Creates the Promise and the async work; throws a JavaScript error if Node refuses.
  napi_value start(const char* name) {
    napi_value promise = nullptr, resourceName = nullptr;
    if (napi_create_promise(env_, &deferred_, &promise) != napi_ok ||
        napi_create_string_utf8(env_, name, NAPI_AUTO_LENGTH, &resourceName) != napi_ok ||
        napi_create_async_work(env_, nullptr, resourceName, execute, complete, this, &asyncWork_) != napi_ok)
      throw Napi::Error::New(env_, "cuda-matmul: could not queue the task");
    return promise;
  }

  bool submit() { return napi_queue_async_work(env_, asyncWork_) == napi_ok; }
  void cancel() { napi_cancel_async_work(env_, asyncWork_); }  // fails harmlessly once started

 private:
  // On a thread-pool thread. A task of an environment that is ending does nothing.
  static void execute(napi_env, void* data) {
    auto* task = static_cast<Task*>(data);
    if (task->queue_->stopping() || task->aborted()) return void(task->skipped_ = true);
    // Work that waited for cores checks these, and a CPU product between k-slices (core_budget.h).
    const StopScope scope(task->queue_->stopFlag(), task->abort_ ? &task->abort_->flag() : nullptr);
    try {
      task->work_();
    } catch (...) {
      task->error_ = std::current_exception();
    }
  }

  // On the JavaScript thread, also while the environment is torn down: nothing may escape from here.
  static void complete(napi_env, napi_status status, void* data) {
    auto* task = static_cast<Task*>(data);
    const std::shared_ptr<TaskQueue> queue = task->queue_;
    const bool notRun = status == napi_cancelled || task->skipped_;
    // Not run: dropped at teardown (the Promise stays pending) or for its abort.
    const bool settled = notRun ? !task->aborted() || task->rejectWith(abortedError()) : task->settle();
    if (!settled) queue->stop();  // the Promise could not be settled: the environment is ending
    queue->completed(task);
  }

  // Resolves or rejects the Promise; false when JavaScript can no longer run here.
  bool settle() noexcept {
    // Node opened a handle scope around this callback.
    try {
      // A task stopped by its abort may have thrown anything on the way out (cpu/gemm.cpp: a product stopped).
      if (error_ && aborted()) throw abortedError();
      if (error_) std::rethrow_exception(error_);
      return napi_resolve_deferred(env_, deferred_, settle_(Napi::Env(env_))) == napi_ok;
    } catch (const Napi::Error& e) {
      return rejectWith(e);
    } catch (const std::exception& e) {
      return rejectWith(e);
    } catch (...) {
      return false;
    }
  }

  bool rejectWith(const Napi::Error& e) noexcept {
    try {
      return reject(e.Value());
    } catch (...) {
      return false;
    }
  }

  bool rejectWith(const std::exception& e) noexcept {
    try {
      return reject(toJsError(Napi::Env(env_), e).Value());
    } catch (...) {
      return false;
    }
  }

  bool reject(napi_value reason) noexcept { return napi_reject_deferred(env_, deferred_, reason) == napi_ok; }

  napi_env env_;
  std::shared_ptr<TaskQueue> queue_;
  std::function<void()> work_;
  std::function<Napi::Value(Napi::Env)> settle_;
  std::shared_ptr<CallAbort> abort_;
  napi_deferred deferred_ = nullptr;
  napi_async_work asyncWork_ = nullptr;
  std::exception_ptr error_;
  bool skipped_ = false;
};

void TaskQueue::add(Task* task) {
  if (stopping()) return delete task;  // the environment is ending: the Promise stays pending
  waiting_.push_back(task);
  pump();
}

void TaskQueue::completed(Task* task) {
  submitted_.erase(task);
  delete task;
  pump();
}

void TaskQueue::pump() {
  while (!stopping() && !waiting_.empty() && submitted_.size() < maxSubmitted()) {
    Task* task = waiting_.front();
    waiting_.pop_front();
    if (!task->submit()) {
      delete task;  // Node refused work: the environment is ending
      stop();
      return;
    }
    submitted_.insert(task);
  }
}

void TaskQueue::stop() {
  stopping_.store(true, std::memory_order_release);
  for (Task* task : waiting_) delete task;
  waiting_.clear();
  for (Task* task : submitted_) task->cancel();  // those not yet started complete as cancelled
}

void TaskQueue::dropAborted() {
  std::erase_if(waiting_, [](Task* task) {
    if (!task->aborted()) return false;
    task->rejectAborted();
    delete task;
    return true;
  });
  for (Task* task : submitted_)
    if (task->aborted()) task->cancel();  // one a thread has taken runs on, and sees its abort
}

std::shared_ptr<TaskQueue> newTaskQueue() { return std::make_shared<TaskQueue>(); }

Napi::Promise queueTask(Napi::Env env, const char* name, std::function<void()> work,
                        std::function<Napi::Value(Napi::Env)> settle, std::shared_ptr<CallAbort> abort) {
  const std::shared_ptr<TaskQueue>& queue = AddonEnvironment::of(env).tasks;
  if (abort) abort->onRequest([weak = std::weak_ptr<TaskQueue>(queue)] {
    if (const auto tasks = weak.lock()) tasks->dropAborted();
  });
  auto* task = new Task(env, queue, std::move(work), std::move(settle), std::move(abort));
  napi_value promise;
  try {
    promise = task->start(name);
  } catch (...) {
    delete task;
    throw;
  }
  queue->add(task);  // owns the task from here; deleted once completed or dropped
  return Napi::Promise(env, promise);
}

void stopTasks(Napi::Env env) { AddonEnvironment::of(env).tasks->stop(); }

}  // namespace cuda_matmul

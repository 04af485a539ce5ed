#include "binding/host_arrays.h"

#include <v8.h>

#include "binding/arguments.h"
#include "binding/v8_values.h"
#include "core/errors.h"
#include "core/host_memory.h"
#include "core/result_memory.h"

namespace cuda_matmul {
namespace {

// Whether this runtime lets an ArrayBuffer use memory V8 did not allocate: a V8 sandbox (Electron's, for one)
// forbids it, and V8 would abort on an outside backing store, so Node-API is asked first; it refuses with
// napi_no_external_buffers_allowed there.
bool outsideMemoryAllowed(napi_env env) {
  static const bool allowed = [env] {
    static char probe;
    napi_value buffer;
    return napi_create_external_arraybuffer(env, &probe, 1, nullptr, nullptr, &buffer) == napi_ok;
  }();
  return allowed;
}

// V8 calls this when the last holder of a result's memory lets go, on whichever thread frees it.
void giveBackToCache(void* data, size_t bytes, void* /*unused*/) { giveBackResultMemory(data, bytes); }

}  // namespace

Napi::Value allocHostArray(const Napi::CallbackInfo& info) {
  const int64_t length = parseHostLength(info[0]);
  const size_t bytes = sizeof(float) * static_cast<size_t>(length);
  const HostAllocation allocation = allocateHost(bytes);
  // The finalizer gets the allocation's id, not its address: after freeHost the address may be reused.
  auto* id = new uint64_t(allocation.id);
  Napi::ArrayBuffer buffer;
  try {
    buffer = Napi::ArrayBuffer::New(
        info.Env(), allocation.data, bytes,
        [](Napi::Env, void*, uint64_t* finalizedId) {
          releaseHost(*finalizedId);
          delete finalizedId;
        },
        id);
  } catch (...) {
    releaseHost(allocation.id);
    delete id;
    throw;
  }
  return Napi::Float32Array::New(info.Env(), static_cast<size_t>(length), buffer, 0);
}

Napi::Value freeHostArray(const Napi::CallbackInfo& info) {
  Napi::Float32Array array = parseHostArray(info[0]);
  Napi::ArrayBuffer buffer = array.ArrayBuffer();
  uint64_t id = 0;
  const bool wholeBuffer = array.ByteOffset() == 0 && array.ByteLength() == buffer.ByteLength();
  if (!wholeBuffer || !findHostAllocation(buffer.Data(), buffer.ByteLength(), &id))
    throw MatmulError(ErrorKind::Type, "array: expected a Float32Array from allocHost (not a copy or a view of one)");
  buffer.Detach();  // every view of it now has length 0, so nothing reads freed memory
  releaseHost(id);  // now, or when the products in flight that use it end
  return info.Env().Undefined();
}

// Through V8 directly: Node-API's external ArrayBuffer wraps a Buffer and a finalizer run on the JavaScript
// thread around each one, where the cache only needs its memory back, from any thread.
Napi::Value resultBuffer(const Napi::CallbackInfo& info) {
  const size_t bytes = sizeof(float) * static_cast<size_t>(parseHostLength(info[0]));
  if (bytes == 0 || !outsideMemoryAllowed(info.Env())) return Napi::ArrayBuffer::New(info.Env(), bytes);
  void* data = takeResultMemory(bytes);
  std::unique_ptr<v8::BackingStore> store = v8::ArrayBuffer::NewBackingStore(data, bytes, giveBackToCache, nullptr);
  const v8::Local<v8::ArrayBuffer> buffer = v8::ArrayBuffer::New(v8::Isolate::GetCurrent(), std::move(store));
  return Napi::Value(info.Env(), asNapi(buffer));
}

}  // namespace cuda_matmul

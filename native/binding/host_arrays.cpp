#include "binding/host_arrays.h"

#include "binding/arguments.h"
#include "core/errors.h"
#include "core/host_memory.h"

namespace cuda_matmul {

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

}  // namespace cuda_matmul

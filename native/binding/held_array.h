// A Float32Array argument held for the length of a call (a product in flight, a Matrix upload or download).
// Taken on the JavaScript thread after every scalar argument was read, so no user getter runs between reading
// its address and using it; its memory is kept alive by holding V8's backing store, so transferring, detaching
// or garbage-collecting the array while the call runs cannot free what the call reads or writes. Resizable
// ArrayBuffers are refused (shrinking one decommits its pages under a running product). Released on the
// JavaScript thread.
#pragma once

#include <napi.h>

#include <cstdint>
#include <memory>

#include "core/host_memory.h"

namespace cuda_matmul {

class HeldArray {
 public:
  HeldArray() = default;

  // TypeError naming `name` unless `value` is a Float32Array on an attached, non-resizable buffer. An input is
  // held by its memory alone; an output also keeps the array object, to resolve its call with (array, delivered).
  static HeldArray takeInput(const Napi::Value& value, const char* name);
  static HeldArray takeOutput(const Napi::Value& value, const char* name);

  float* data() const { return data_; }
  int64_t length() const { return length_; }
  size_t bytes() const { return sizeof(float) * static_cast<size_t>(length_); }
  // Page-locked (from allocHost): the GPU may copy straight from or into it.
  bool pinned() const { return use_.pinned(); }
  // An output's array (takeOutput). JavaScript thread only.
  Napi::Float32Array array() const { return ref_.Value(); }
  // Whether an output's array still shows the elements it held when taken: false once its buffer was detached
  // (transferred) since.
  bool intact() const;
  // An output's array, to resolve a call that wrote it with: a TypeError naming it if it was detached
  // (transferred) while the call ran, since its new owner now holds what was written.
  Napi::Value delivered(const char* name) const;

 private:
  float* data_ = nullptr;
  int64_t length_ = 0;
  std::shared_ptr<void> store_;  // the v8::BackingStore
  HostUse use_;                  // keeps allocHost memory from being freed by freeHost meanwhile
  Napi::Reference<Napi::Float32Array> ref_;  // outputs only: a reference per array cost every call
};

}  // namespace cuda_matmul

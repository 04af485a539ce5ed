// Node-API values as V8 handles and back, for the few things Node-API cannot do (held_array.cpp, host_arrays.cpp):
// a napi_value is a v8::Local<v8::Value> (Node's js_native_api_v8.h converts them the same way).
#pragma once

#include <node_api.h>
#include <v8.h>

#include <cstring>

namespace cuda_matmul {

inline v8::Local<v8::Value> asLocal(napi_value value) {
  v8::Local<v8::Value> local;
  static_assert(sizeof local == sizeof value, "napi_value is a v8::Local<v8::Value>");
  std::memcpy(static_cast<void*>(&local), &value, sizeof value);
  return local;
}

inline napi_value asNapi(v8::Local<v8::Value> local) {
  napi_value value;
  std::memcpy(static_cast<void*>(&value), &local, sizeof value);
  return value;
}

}  // namespace cuda_matmul

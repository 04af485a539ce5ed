#include "binding/held_array.h"

#include <dlfcn.h>
#include <v8.h>

#include <string>

#include "binding/arguments.h"
#include "binding/v8_values.h"
#include "core/errors.h"

namespace cuda_matmul {
namespace {

// Whether user JavaScript can resize the buffer. BackingStore::IsResizableByUserJavaScript appeared in V8 11
// (Node 20); Node 18's V8 makes no resizable buffers by default. The method is looked up when the addon loads,
// so that the addon still loads and runs where it is missing (it is a plain const member function: `this` is
// its only argument).
bool resizable(const v8::BackingStore& store) {
  using Query = bool (*)(const v8::BackingStore*);
  static const Query query =
      reinterpret_cast<Query>(dlsym(RTLD_DEFAULT, "_ZNK2v812BackingStore27IsResizableByUserJavaScriptEv"));
  return query != nullptr && query(&store);
}

[[noreturn]] void typeError(const char* name, const std::string& what) {
  throw MatmulError(ErrorKind::Type, std::string(name) + ": " + what);
}

}  // namespace

// Node-API offers no way to keep an ArrayBuffer's memory alive across a detach, so holding an array uses V8's own API
// (v8_values.h): the shared backing store outlives any transfer of the buffer. Straight through V8, once: Node-API's
// checks and napi_get_typedarray_info read the array four times over, 1.75 µs for a gathered call's three arrays on
// the H100 host (docs/transfers.md, "New result arrays"). A value that is not a Float32Array
// goes to requireFloat32Array, which words the error.
HeldArray HeldArray::takeInput(const Napi::Value& value, const char* name) {
  const v8::Local<v8::Value> local = asLocal(value);
  if (!local->IsFloat32Array()) {
    requireFloat32Array(value, name);  // throws, naming what the value is
    typeError(name, "expected a Float32Array");
  }
  const v8::Local<v8::Float32Array> array = local.As<v8::Float32Array>();
  const v8::Local<v8::ArrayBuffer> buffer = array->Buffer();
  if (buffer->WasDetached()) typeError(name, "its ArrayBuffer is detached (transferred or freed)");
  std::shared_ptr<v8::BackingStore> store = buffer->GetBackingStore();
  if (resizable(*store))
    typeError(name, "its ArrayBuffer is resizable, and could shrink under a running product; pass a copy (array.slice())");
  HeldArray held;
  // Read after the checks, with no JavaScript run since: the address and length the call will use.
  held.data_ = reinterpret_cast<float*>(static_cast<char*>(store->Data()) + array->ByteOffset());
  held.length_ = static_cast<int64_t>(array->Length());
  held.store_ = std::move(store);
  held.use_ = HostUse(held.data_, held.bytes());
  return held;
}

HeldArray HeldArray::takeOutput(const Napi::Value& value, const char* name) {
  HeldArray held = takeInput(value, name);
  held.ref_ = Napi::Persistent(value.As<Napi::Float32Array>());
  return held;
}

bool HeldArray::intact() const {
  const Napi::Float32Array now = ref_.Value();
  return static_cast<int64_t>(now.ElementLength()) == length_ && (length_ == 0 || now.Data() == data_);
}

Napi::Value HeldArray::delivered(const char* name) const {
  if (!intact())
    throw MatmulError(ErrorKind::Type, std::string(name) + ": its ArrayBuffer was detached while the product ran");
  return array();
}

}  // namespace cuda_matmul

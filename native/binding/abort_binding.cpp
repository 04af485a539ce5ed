#include "binding/abort_binding.h"

#include "core/errors.h"

namespace cuda_matmul {
namespace {

constexpr napi_type_tag kCallAbortTag = {0x3f1c9a7e52b84d06ULL, 0xa4d2e07b19c6f385ULL};

class NativeCallAbort : public Napi::ObjectWrap<NativeCallAbort> {
 public:
  static Napi::Function define(Napi::Env env) {
    return DefineClass(env, "CallAbort", {InstanceMethod<&NativeCallAbort::abort>("abort")});
  }

  explicit NativeCallAbort(const Napi::CallbackInfo& info)
      : Napi::ObjectWrap<NativeCallAbort>(info), abort_(std::make_shared<CallAbort>()) {
    info.This().As<Napi::Object>().TypeTag(&kCallAbortTag);
  }

  const std::shared_ptr<CallAbort>& get() const { return abort_; }

 private:
  Napi::Value abort(const Napi::CallbackInfo& info) {
    abort_->request();
    return info.Env().Undefined();
  }

  std::shared_ptr<CallAbort> abort_;
};

}  // namespace

void initAbortBinding(Napi::Env env, Napi::Object exports) {
  exports.Set("CallAbort", NativeCallAbort::define(env));
}

std::shared_ptr<CallAbort> parseAbort(const Napi::Value& value) {
  if (value.IsUndefined()) return nullptr;
  if (!value.IsObject() || !value.As<Napi::Object>().CheckTypeTag(&kCallAbortTag))
    throw MatmulError(ErrorKind::Type, "abort: expected a CallAbort of this addon");
  return NativeCallAbort::Unwrap(value.As<Napi::Object>())->get();
}

}  // namespace cuda_matmul

// The driver probe: a tiny Node-API addon, in C and linked to nothing but libc and libdl, that lib/native.ts
// loads before the product addon to learn which CUDA version the installed NVIDIA driver supports, so that it
// can choose the variant built with a CUDA runtime that driver runs (docs/architecture.md, "Shipped binaries").
// It opens libcuda.so.1 itself and calls only cuDriverGetVersion, which needs no cuInit and no device.
#include <dlfcn.h>
#include <node_api.h>

typedef int (*DriverGetVersion)(int*);

// { driverCuda: 13000 } (the driver's CUDA version as cuDriverGetVersion gives it), or { problem: "…" }.
static napi_value cudaDriverVersion(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result, value;
  napi_create_object(env, &result);
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char* why = dlerror();
    napi_create_string_utf8(env, why ? why : "libcuda.so.1 could not be loaded", NAPI_AUTO_LENGTH, &value);
    napi_set_named_property(env, result, "problem", value);
    return result;
  }
  DriverGetVersion getVersion = (DriverGetVersion)dlsym(library, "cuDriverGetVersion");
  int version = 0;
  int status = getVersion ? getVersion(&version) : -1;
  if (status != 0 || version <= 0) {
    napi_create_string_utf8(env, getVersion ? "cuDriverGetVersion failed" : "libcuda.so.1 has no cuDriverGetVersion",
                            NAPI_AUTO_LENGTH, &value);
    napi_set_named_property(env, result, "problem", value);
  } else {
    napi_create_int32(env, version, &value);
    napi_set_named_property(env, result, "driverCuda", value);
  }
  dlclose(library);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value function;
  napi_create_function(env, "cudaDriverVersion", NAPI_AUTO_LENGTH, cudaDriverVersion, NULL, &function);
  napi_set_named_property(env, exports, "cudaDriverVersion", function);
  return exports;
}

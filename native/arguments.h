// Validation of matmul's JavaScript arguments in the native layer. lib/validate.ts checks the same things
// first with the same messages; this layer checks again so the addon is safe when called directly.
#pragma once

#include <napi.h>

#include "host_memory.h"
#include "request.h"

namespace cuda_matmul {

struct MatmulCall {
  MatmulRequest request;        // pointers into the arrays below
  Napi::Float32Array a, b, out;  // keep these alive while the request runs
  HostUse uses[3];               // and keep allocHost memory under them from being freed (freeHost)
};

// native.matmul(a, b, shape, options): throws a JS TypeError/RangeError naming the bad argument.
// `out` is options.out, or a new zero-filled Float32Array of m·n elements.
MatmulCall parseMatmulCall(const Napi::CallbackInfo& info);

// native.gemm({ a, b, c, m, k, n, transA, transB, alpha, beta, batch, strideA, strideB, strideC },
//             { backend, kernel, precision, device }) on Float32Arrays.
struct GemmCall {
  GemmRequest request;
  Napi::Float32Array a, b, c;
  HostUse uses[3];
};
GemmCall parseGemmCall(const Napi::CallbackInfo& info);

// The shape part of gemm's arguments (m, k, n, transA, transB, alpha, beta), for arrays and Matrices.
GemmShape parseGemmShape(const Napi::Object& args);
// A batch of gemm on Matrices (batch, strideA, strideB, strideC, in rows), defaults stacking the operands.
RowBatch parseRowBatch(const Napi::Object& args, const GemmShape& shape);

// native.matrixFrom(data, rows, cols, { backend, device }): data.length must be rows·cols.
struct MatrixSource {
  Napi::Float32Array array;
  const float* data;
  int64_t rows, cols;
  Backend backend;
  int device;
};
MatrixSource parseMatrixSource(const Napi::CallbackInfo& info);

// native.matrixMultiply(a, b, { kernel, precision, out }): out is left for matrix_binding.cpp to check.
struct MatrixProductOptions {
  Kernel kernel;
  Precision precision;
  Napi::Value out;
};
MatrixProductOptions parseMatrixProductOptions(const Napi::Value& options);

// native.matrixToArray(matrix, out): out must be a Float32Array of `length` elements.
Napi::Float32Array parseMatrixDestination(const Napi::Value& value, int64_t length);

// native.allocHost(length): a length of at most kMaxHostLength floats, else TypeError/RangeError ("length: …").
constexpr int64_t kMaxHostLength = (int64_t{1} << 32) - 1;  // V8's largest typed array
int64_t parseHostLength(const Napi::Value& value);

// native.freeHost(array): a Float32Array, not detached ("array: …"); host_arrays.cpp checks it is allocHost's.
Napi::Float32Array parseHostArray(const Napi::Value& value);

}  // namespace cuda_matmul

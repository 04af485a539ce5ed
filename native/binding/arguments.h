// Validation of the JavaScript arguments in the native layer. lib/validate.ts checks the same things first
// with the same messages; this layer checks again so the addon is safe when called directly. Every parser
// reads all scalar arguments (each once) before it takes any array (held_array.h): a getter can run user code,
// and none may run between taking an array's address and using it.
#pragma once

#include <napi.h>

#include <string>

#include "binding/held_array.h"
#include "core/request.h"
#include "core/search.h"

namespace cuda_matmul {

// The largest Float32Array this addon makes (a result, allocHost): V8's limit on every supported Node version.
constexpr int64_t kMaxHostLength = (int64_t{1} << 32) - 1;

// "a Float64Array", "null", "an object": for messages.
std::string describeValue(const Napi::Value& value);

// `value` as a Float32Array on an attached buffer, else a TypeError naming it (and, for another array type,
// how to convert it). Held arrays (held_array.h) and freeHost's argument are checked by it.
Napi::Float32Array requireFloat32Array(const Napi::Value& value, const char* name);

// A call on Float32Arrays: matmul and gemm alike make one GemmRequest (core/request.h).
struct ArrayCall {
  GemmRequest request;  // pointers into the arrays below
  HeldArray a, b, c;    // held while the request runs
  const char* cName;    // "out" (matmul) or "c" (gemm), for messages
};

// native.matmul(a, b, shape, options): throws a JS TypeError/RangeError naming the bad argument.
// c is options.out, or a new zero-filled Float32Array of m·n elements.
ArrayCall parseMatmulCall(const Napi::CallbackInfo& info);

// native.gemm({ a, b, c, m, k, n, transA, transB, alpha, beta, batch, strideA, strideB, strideC },
//             { backend, kernel, precision, device }) on Float32Arrays.
ArrayCall parseGemmCall(const Napi::CallbackInfo& info);

// The shape part of gemm's arguments (m, k, n, transA, transB, alpha, beta), for arrays and Matrices.
GemmShape parseGemmShape(const Napi::Object& args);
// A batch of gemm on Matrices (batch, strideA, strideB, strideC, in rows), defaults stacking the operands.
RowBatch parseRowBatch(const Napi::Object& args, const GemmShape& shape);

// A small product gathered for the next batch (gathered.cpp): its arrays, held until the batch has run.
struct GatheredCall {
  SmallProduct product;  // pointers into the arrays below
  HeldArray a, b, c;
};

// native.gather(a, b, m, k, n, out): m·k + k·n + m·n at most kGatheredMaxFloats and k at most kGatheredMaxDepth
// (core/request.h), out a Float32Array of m·n elements sharing no memory with a or b.
GatheredCall parseGatheredCall(const Napi::CallbackInfo& info);

// native.runGathered(count): at most the `gathered` products held, else a RangeError ("count: …").
int64_t parseGatheredCount(const Napi::Value& value, int64_t gathered);

// native.matrixFrom(data, rows, cols, { backend, device }): data.length must be rows·cols.
struct MatrixSource {
  HeldArray data;
  int64_t rows, cols;
  Choice choice;  // backend and device
};
MatrixSource parseMatrixSource(const Napi::CallbackInfo& info);

// native.matrixMultiply(a, b, { kernel, precision, out }): out is left for matrix_binding.cpp to check.
struct MatrixProductOptions {
  Kernel kernel;
  Precision precision;
  Napi::Value out;
};
MatrixProductOptions parseMatrixProductOptions(const Napi::Value& options);
// A kernel or precision option's value: a name of the option table (core/options.h), or undefined for the default.
Kernel parseKernel(const Napi::Value& value);
Precision parsePrecision(const Napi::Value& value);
// A search's metric (core/search.h): a name of kMetricNames, or undefined for 'dot'.
Metric parseMetric(const Napi::Value& value);

// native.matrixToArray(matrix, out): out must be a Float32Array of `length` elements.
HeldArray parseMatrixDestination(const Napi::Value& value, int64_t length);

// native.matrixSearch's k ("k: …"; plan.cpp checks it against the corpus) and its two results, each of
// queries·k elements: scores a Float32Array, indices a Float32Array over a Uint32Array's memory (lib/matrix.ts makes
// both; only the library holds them).
int64_t parseSearchCount(const Napi::Value& value);
struct SearchDestination {
  HeldArray scores, indices;
};
SearchDestination parseSearchDestination(const Napi::Value& scores, const Napi::Value& indices, int64_t length);

// native.allocHost(length): a length of at most kMaxHostLength floats, else TypeError/RangeError ("length: …").
int64_t parseHostLength(const Napi::Value& value);

// native.freeHost(array): a Float32Array, not detached ("array: …"); host_arrays.cpp checks it is allocHost's.
Napi::Float32Array parseHostArray(const Napi::Value& value);

}  // namespace cuda_matmul

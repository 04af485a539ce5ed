// Matrices for JavaScript (lib/matrix.ts wraps these): a NativeMatrix object owns a shared MatrixData.
// matrixFrom uploads on the thread pool; matrixMultiply, matrixGemm and matrixToArray are queued in program
// order when called (core/plan.h) and settle through completion.h.
#pragma once

#include <napi.h>

namespace cuda_matmul {

// Adds NativeMatrix, matrixFrom, matrixMultiply, matrixToArray and matrixGemm to the exports.
void initMatrixBinding(Napi::Env env, Napi::Object exports);

}  // namespace cuda_matmul

// Matrices for JavaScript (lib/matrix.ts wraps these): a NativeMatrix object owns a shared MatrixData;
// matrixFrom, matrixMultiply and matrixToArray run as tasks off the JavaScript thread.
#pragma once

#include <napi.h>

namespace cuda_matmul {

// Adds NativeMatrix, matrixFrom, matrixMultiply and matrixToArray to the exports.
void initMatrixBinding(Napi::Env env, Napi::Object exports);

}  // namespace cuda_matmul

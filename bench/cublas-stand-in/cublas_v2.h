// A stand-in for cuBLAS's header, for compiling bench/kernels.cu on a machine with nvcc but without cuBLAS (the
// development machine): the declarations and enum values (from cuBLAS 12/13's cublas_api.h) that kernels.cu,
// accuracy.cu and bench_common.cuh use, nothing more. The object then links against the real library on the GPU host,
// where nvcc takes seconds instead of the minute a whole compile takes there (device time):
//   here:  nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -DCUDA_MATMUL_WGMMA -I native \
//            -I bench/cublas-stand-in -c bench/kernels.cu -o .gpu-exp/kernels.o
//   there: nvcc .gpu-exp/kernels.o -lcublas -o /tmp/kernels
// cuBLAS's own figures and errors from such a build matched a build against the real header (docs/kernels.md, "Step 3: wgmma"). A wrong value here would show there as a cuBLAS error or an error column far
// off.
#pragma once

#include <cuda_runtime.h>
#include <library_types.h>

extern "C" {
typedef struct cublasContext* cublasHandle_t;
typedef enum { CUBLAS_STATUS_SUCCESS = 0 } cublasStatus_t;
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 } cublasOperation_t;
typedef enum { CUBLAS_COMPUTE_32F = 68, CUBLAS_COMPUTE_32F_FAST_TF32 = 77 } cublasComputeType_t;
typedef enum { CUBLAS_GEMM_DEFAULT = -1 } cublasGemmAlgo_t;
typedef enum { CUBLAS_PEDANTIC_MATH = 2, CUBLAS_TF32_TENSOR_OP_MATH = 3 } cublasMath_t;
cublasStatus_t cublasCreate_v2(cublasHandle_t* handle);
cublasStatus_t cublasDestroy_v2(cublasHandle_t handle);
cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                            int k, const void* alpha, const void* A, cudaDataType Atype, int lda, const void* B,
                            cudaDataType Btype, int ldb, const void* beta, void* C, cudaDataType Ctype, int ldc,
                            cublasComputeType_t computeType, cublasGemmAlgo_t algo);
cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode);
cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                              int k, const float* alpha, const float* A, int lda, const float* B, int ldb,
                              const float* beta, float* C, int ldc);
}
#define cublasCreate cublasCreate_v2
#define cublasDestroy cublasDestroy_v2
#define cublasSgemm cublasSgemm_v2

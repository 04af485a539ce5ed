// α and β applied on the host: c = α·t + β·c over `count` floats, α·t and β·c each rounded before they are added (two
// roundings), as the GPU's epilogue rounds them (cuda/kernels/helpers.cuh, scaledSum), so that gemm from host arrays
// gives the bits a Matrix product gives; β = 0 sets c = α·t whatever c held, NaN included, as BLAS does. The CPU
// backend's gemm and the CUDA routes' host side (cuda/transfer/host_copy.h) both apply them here.
#pragma once

#include <cstddef>

namespace cuda_matmul {

void scaledSumInto(float* c, const float* t, size_t count, float alpha, float beta);

}  // namespace cuda_matmul

// The magnitude classes of a float that the tensor-core kernels' splitting cares about (helpers.cuh,
// magnitudeClass, splitLosesProducts): whether it is under 2^-100 (tiny) or over 2^64 (huge) but finite. Plain
// constants, so that host code compiled without CUDA (transfer/host_classes.cpp) uses the same bounds.
#pragma once

#include <cstdint>

namespace cuda_matmul {

constexpr uint32_t kTinySeen = 1, kHugeSeen = 2;
// On |x|'s bits: tiny is 0 < |x| < 2^-100, huge is 2^64 < |x| < ∞.
constexpr uint32_t kTinyBelowBits = 0x0d800000u, kHugeAboveBits = 0x5f800000u, kInfinityBits = 0x7f800000u;

}  // namespace cuda_matmul

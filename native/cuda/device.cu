// Finds out, once, whether CUDA can be used here and on which devices, and if not, why — in words a user
// can act on (no driver, a driver too old for the CUDA runtime linked into this addon, no device).
#include <cuda_runtime.h>

#include <cstdlib>
#include <fstream>
#include <mutex>
#include <regex>
#include <string>

#include "cuda/status.h"

namespace cuda_matmul {
namespace {

// The oldest Linux driver branch that runs the CUDA runtime this addon was built with (statically linked): the first
// of its major version, since a driver runs every runtime of its major version (CUDA's minor-version compatibility).
constexpr const char* kMinimumDriverBranch = CUDART_VERSION >= 13000 ? "580" : "525";
constexpr int kMinimumDriverCuda = CUDART_VERSION / 1000 * 1000;

std::string cudaVersionText(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

// "the NVIDIA driver 580.159.03", with the kernel module's version, which users know as "the driver version".
std::string installedDriver() {
  std::ifstream file("/proc/driver/nvidia/version");
  std::string line;
  std::getline(file, line);
  std::smatch match;
  if (std::regex_search(line, match, std::regex("([0-9]+\\.[0-9]+(\\.[0-9]+)?)"))) return "the NVIDIA driver " + match[1].str();
  return "the NVIDIA driver";
}

std::string driverProblem() {
  int driverCuda = 0;
  if (cudaDriverGetVersion(&driverCuda) != cudaSuccess || driverCuda == 0)
    return "no NVIDIA driver was found (libcuda.so.1 could not be loaded)";
  if (driverCuda < kMinimumDriverCuda)
    return installedDriver() + " found supports CUDA " + cudaVersionText(driverCuda) +
           ", but cuda-matmul needs CUDA " + cudaVersionText(kMinimumDriverCuda) + " or newer: driver " +
           kMinimumDriverBranch + " or newer";
  return "";
}

std::string noDeviceReason(cudaError_t status) {
  std::string reason = status == cudaErrorNoDevice || status == cudaSuccess
                           ? "no CUDA device was found"
                           : std::string("CUDA could not list devices: ") + cudaGetErrorString(status);
  if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES"))
    reason += std::string(" (CUDA_VISIBLE_DEVICES=\"") + visible + "\")";
  return reason;
}

CudaStatus probe() {
  CudaStatus status;
  status.reason = driverProblem();
  if (!status.reason.empty()) return status;

  int count = 0;
  cudaError_t counted = cudaGetDeviceCount(&count);
  if (counted != cudaSuccess || count == 0) {
    status.reason = noDeviceReason(counted);
    cudaGetLastError();  // clear the non-sticky error so later calls start clean
    return status;
  }
  for (int index = 0; index < count; ++index) {
    cudaDeviceProp props{};
    if (cudaGetDeviceProperties(&props, index) != cudaSuccess) continue;
    status.devices.push_back({index, props.name, std::to_string(props.major) + "." + std::to_string(props.minor),
                              props.major, props.minor, props.multiProcessorCount,
                              static_cast<uint64_t>(props.totalGlobalMem)});
  }
  status.usable = !status.devices.empty();
  if (!status.usable) status.reason = "CUDA devices were counted but none could be queried";
  return status;
}

}  // namespace

const CudaStatus& cudaStatus() {
  static std::once_flag once;
  static CudaStatus status;
  std::call_once(once, [] { status = probe(); });
  return status;
}

}  // namespace cuda_matmul

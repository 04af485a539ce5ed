#include "core/usable_cores.h"

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

namespace cuda_matmul {
namespace {

// The affinity mask's count, asked with a mask large enough for the machine (the kernel refuses a smaller one).
std::optional<int> affinityCount() {
  for (int cpus = 1024; cpus <= (1 << 20); cpus *= 2) {
    cpu_set_t* set = CPU_ALLOC(cpus);
    if (!set) return std::nullopt;
    const size_t bytes = CPU_ALLOC_SIZE(cpus);
    const bool read = sched_getaffinity(0, bytes, set) == 0;
    const int error = errno;
    const int count = read ? CPU_COUNT_S(bytes, set) : 0;
    CPU_FREE(set);
    if (read) return count;
    if (error != EINVAL) return std::nullopt;
  }
  return std::nullopt;
}

// The CPUs a quota of `quota` per `period` microseconds buys, rounded up; none where either is not a positive number
// (cgroup v2 writes "max" for no quota, v1 writes -1).
std::optional<double> quotaCores(const std::string& quota, const std::string& period) {
  char* end = nullptr;
  const double q = std::strtod(quota.c_str(), &end);
  if (end == quota.c_str()) return std::nullopt;
  const double p = std::strtod(period.c_str(), &end);
  if (end == period.c_str() || q <= 0 || p <= 0) return std::nullopt;
  return std::ceil(q / p);
}

std::optional<std::string> firstLine(const std::string& file) {
  std::ifstream in(file);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  return line;
}

// One cgroup directory's quota: cgroup v2's "cpu.max" ("<quota> <period>"), or v1's cpu.cfs_quota_us and
// cpu.cfs_period_us.
std::optional<double> directoryQuota(const std::string& directory, bool v2) {
  if (v2) {
    const auto line = firstLine(directory + "/cpu.max");
    if (!line) return std::nullopt;
    std::istringstream fields(*line);
    std::string quota, period;
    fields >> quota >> period;
    return quotaCores(quota, period);
  }
  const auto quota = firstLine(directory + "/cpu.cfs_quota_us");
  const auto period = firstLine(directory + "/cpu.cfs_period_us");
  return quota && period ? quotaCores(*quota, *period) : std::nullopt;
}

// The tightest quota from the process's cgroup up to the hierarchy's root. Every level is tried, since a container
// whose /proc/self/cgroup names its host-side path has its own cgroup mounted as the root.
std::optional<double> hierarchyQuota(const std::string& root, std::string cgroup, bool v2) {
  std::optional<double> tightest;
  for (;;) {
    if (const auto cores = directoryQuota(root + cgroup, v2)) tightest = std::min(tightest.value_or(*cores), *cores);
    if (cgroup.empty() || cgroup == "/") return tightest;
    cgroup.erase(cgroup.find_last_of('/'));
  }
}

// The quota of every hierarchy with the cpu controller, from /proc/self/cgroup ("<id>:<controllers>:<path>"),
// where they are conventionally mounted: cgroup v2 at /sys/fs/cgroup (or /sys/fs/cgroup/unified beside v1), v1 at
// /sys/fs/cgroup/<controllers> (or /sys/fs/cgroup/cpu).
std::optional<double> cgroupQuota() {
  std::ifstream in("/proc/self/cgroup");
  std::optional<double> tightest;
  const auto keep = [&](std::optional<double> cores) {
    if (cores) tightest = std::min(tightest.value_or(*cores), *cores);
  };
  for (std::string line; std::getline(in, line);) {
    const size_t first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1), cgroup = line.substr(second + 1);
    if (controllers.empty()) {
      keep(hierarchyQuota("/sys/fs/cgroup", cgroup, true));
      keep(hierarchyQuota("/sys/fs/cgroup/unified", cgroup, true));
    } else if (("," + controllers + ",").find(",cpu,") != std::string::npos) {
      keep(hierarchyQuota("/sys/fs/cgroup/" + controllers, cgroup, false));
      if (controllers != "cpu") keep(hierarchyQuota("/sys/fs/cgroup/cpu", cgroup, false));
    }
  }
  return tightest;
}

int countUsableCores() {
  const int machine = static_cast<int>(std::thread::hardware_concurrency());
  int cores = affinityCount().value_or(machine);
  if (const auto quota = cgroupQuota()) cores = std::min(cores, static_cast<int>(*quota));
  return std::max(1, cores);
}

}  // namespace

int usableCores() {
  static const int cores = countUsableCores();
  return cores;
}

}  // namespace cuda_matmul

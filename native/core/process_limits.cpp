#include "core/process_limits.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
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

std::optional<std::string> firstLine(const std::string& file) {
  std::ifstream in(file);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  return line;
}

// A positive number that starts `text`; none for "max" (cgroup v2's "no limit"), -1 (v1's) or anything else.
std::optional<double> positiveNumber(const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  return end != text.c_str() && value > 0 ? std::optional<double>(value) : std::nullopt;
}

// The CPUs a quota of `quota` per `period` microseconds buys, rounded up.
std::optional<double> quotaCores(const std::optional<std::string>& quota, const std::optional<std::string>& period) {
  const auto q = quota ? positiveNumber(*quota) : std::nullopt, p = period ? positiveNumber(*period) : std::nullopt;
  return q && p ? std::optional<double>(std::ceil(*q / *p)) : std::nullopt;
}

std::optional<double> cpuMaxCores(const std::string& directory) {  // cgroup v2: "<quota> <period>"
  const auto line = firstLine(directory + "/cpu.max");
  if (!line) return std::nullopt;
  std::istringstream fields(*line);
  std::string quota, period;
  fields >> quota >> period;
  return quotaCores(quota, period);
}

std::optional<double> cfsQuotaCores(const std::string& directory) {  // cgroup v1
  return quotaCores(firstLine(directory + "/cpu.cfs_quota_us"), firstLine(directory + "/cpu.cfs_period_us"));
}

std::optional<double> fileNumber(const std::string& file) {
  const auto line = firstLine(file);
  return line ? positiveNumber(*line) : std::nullopt;
}

using DirectoryLimit = std::function<std::optional<double>(const std::string& directory)>;

// The tighter of two limits, either of which may be absent.
std::optional<double> tighter(std::optional<double> a, std::optional<double> b) {
  return a && b ? std::min(*a, *b) : a ? a : b;
}

// The tightest limit from the process's cgroup up to the hierarchy's root. Every level is tried: a parent's limit
// binds its children, and a container whose /proc/self/cgroup names its host-side path has its own cgroup mounted
// as the root.
std::optional<double> hierarchyLimit(const std::string& root, std::string cgroup, const DirectoryLimit& limit) {
  std::optional<double> tightest;
  for (;;) {
    tightest = tighter(tightest, limit(root + cgroup));
    if (cgroup.empty() || cgroup == "/") return tightest;
    cgroup.erase(cgroup.find_last_of('/'));
  }
}

// The tightest limit of every hierarchy that has `controller`, from /proc/self/cgroup ("<id>:<controllers>:<path>"),
// where hierarchies are conventionally mounted: cgroup v2 at /sys/fs/cgroup (or /sys/fs/cgroup/unified beside v1),
// v1 at /sys/fs/cgroup/<controllers> (or /sys/fs/cgroup/<controller>).
std::optional<double> cgroupLimit(const std::string& controller, const DirectoryLimit& v2, const DirectoryLimit& v1) {
  std::ifstream in("/proc/self/cgroup");
  std::optional<double> tightest;
  for (std::string line; std::getline(in, line);) {
    const size_t first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1), cgroup = line.substr(second + 1);
    if (controllers.empty()) {
      tightest = tighter(tightest, hierarchyLimit("/sys/fs/cgroup", cgroup, v2));
      tightest = tighter(tightest, hierarchyLimit("/sys/fs/cgroup/unified", cgroup, v2));
    } else if (("," + controllers + ",").find("," + controller + ",") != std::string::npos) {
      tightest = tighter(tightest, hierarchyLimit("/sys/fs/cgroup/" + controllers, cgroup, v1));
      if (controllers != controller) tightest = tighter(tightest, hierarchyLimit("/sys/fs/cgroup/" + controller, cgroup, v1));
    }
  }
  return tightest;
}

int countUsableCores() {
  int cores = affinityCount().value_or(static_cast<int>(std::thread::hardware_concurrency()));
  if (const auto quota = cgroupLimit("cpu", cpuMaxCores, cfsQuotaCores)) cores = std::min(cores, static_cast<int>(*quota));
  return std::max(1, cores);
}

uint64_t countUsableMemory() {
  const long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  const double physical = pages > 0 && pageSize > 0 ? static_cast<double>(pages) * static_cast<double>(pageSize) : 0;
  const auto limit = cgroupLimit(
      "memory", [](const std::string& directory) { return fileNumber(directory + "/memory.max"); },
      [](const std::string& directory) { return fileNumber(directory + "/memory.limit_in_bytes"); });
  const double usable = limit && (*limit < physical || physical == 0) ? *limit : physical;
  return static_cast<uint64_t>(usable);
}

}  // namespace

int usableCores() {
  static const int cores = countUsableCores();
  return cores;
}

uint64_t usableMemoryBytes() {
  static const uint64_t bytes = countUsableMemory();
  return bytes;
}

}  // namespace cuda_matmul

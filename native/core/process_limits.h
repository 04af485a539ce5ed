// What this process may use of the machine: its CPUs, which the core budget (core/core_budget.h) and the host-copy
// team share out, and its memory, an eighth of which the result cache may keep (core/result_memory.cpp). Not the
// machine's counts (std::thread::hardware_concurrency, a read of /sys/devices/system/cpu/online, and the physical
// pages): a container sees its whole host there, whatever its cpuset, CPU quota or memory limit. Sized by them, a
// process confined to 2 CPUs of 16 kept a median of 5 to 9 threads runnable (docs/transfers.md, "The core budget").
#pragma once

#include <cstdint>

namespace cuda_matmul {

// The CPUs in this thread's affinity mask (a cpuset: `docker --cpuset-cpus`, taskset, a Kubernetes static CPU
// policy), no more than its cgroup's CPU quota rounded up (`docker --cpus`, a Kubernetes limit; cgroup v2's
// cpu.max or v1's CFS quota); at least 1. Worked out once.
int usableCores();

// The machine's physical memory, no more than its cgroup's memory limit (`docker --memory`, a Kubernetes limit;
// cgroup v2's memory.max or v1's memory.limit_in_bytes). Worked out once.
uint64_t usableMemoryBytes();

}  // namespace cuda_matmul

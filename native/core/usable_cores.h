// The CPUs this process may run on, which is what the core budget (core/core_budget.h) and the host-copy team share
// out. Not the machine's count (std::thread::hardware_concurrency, a read of /sys/devices/system/cpu/online): a
// container sees every CPU of its host there, whatever its cpuset or CPU quota, and a library that sized its threads
// by it kept a median of 5 to 9 threads runnable in a process confined to 2 CPUs of 16 (docs/transfers.md,
// "The core budget").
#pragma once

namespace cuda_matmul {

// The CPUs in this thread's affinity mask (a cpuset: `docker --cpuset-cpus`, taskset, a Kubernetes static CPU
// policy), no more than its cgroup's CPU quota rounded up (`docker --cpus`, a Kubernetes limit; cgroup v2's
// cpu.max or v1's CFS quota, the tightest of its cgroup and the cgroups above it); at least 1. Worked out once.
int usableCores();

}  // namespace cuda_matmul

// A probe: this host's copy rates: pageable→pinned memcpy over T threads, 64 MiB; cudaHostRegister cost; H2D/D2H
#include <cuda_runtime.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>
using Clock = std::chrono::steady_clock;
constexpr size_t kBytes = 64u << 20;
double ms(Clock::time_point s) { return std::chrono::duration<double, std::milli>(Clock::now() - s).count(); }
void copyOver(int threads, char* dst, const char* src, size_t bytes) {
  std::vector<std::thread> ts;
  size_t per = (bytes / threads + 4095) / 4096 * 4096;
  for (int t = 0; t < threads; ++t) {
    size_t b = t * per, e = std::min(bytes, b + per);
    if (b < e) ts.emplace_back([=] { memcpy(dst + b, src + b, e - b); });
  }
  for (auto& t : ts) t.join();
}
void report(const char* what, std::vector<double> t) {
  std::sort(t.begin(), t.end());
  printf("%-40s median %7.2f ms  min %7.2f  max %7.2f  (%5.1f GB/s at median)\n", what, t[t.size() / 2], t.front(), t.back(), kBytes / 1e6 / t[t.size() / 2]);
}
int main() {
  char* src = static_cast<char*>(malloc(kBytes)); memset(src, 1, kBytes);
  char* page = static_cast<char*>(malloc(kBytes)); memset(page, 2, kBytes);
  char* pinned; cudaHostAlloc(reinterpret_cast<void**>(&pinned), kBytes, 0); memset(pinned, 0, kBytes);
  char* dev; cudaMalloc(&dev, kBytes);
  for (int threads : {1, 4, 8, 15}) {
    std::vector<double> t;
    for (int r = 0; r < 15; ++r) { auto s = Clock::now(); copyOver(threads, pinned, src, kBytes); t.push_back(ms(s)); }
    char name[64]; snprintf(name, sizeof name, "memcpy pageable->pinned %2d threads", threads); report(name, t);
    t.clear();
    for (int r = 0; r < 15; ++r) { auto s = Clock::now(); copyOver(threads, page, src, kBytes); t.push_back(ms(s)); }
    snprintf(name, sizeof name, "memcpy pageable->pageable %2d threads", threads); report(name, t);
  }
  std::vector<double> h2d, d2h, reg, unreg;
  for (int r = 0; r < 9; ++r) {
    auto s = Clock::now(); cudaMemcpy(dev, pinned, kBytes, cudaMemcpyHostToDevice); h2d.push_back(ms(s));
    s = Clock::now(); cudaMemcpy(pinned, dev, kBytes, cudaMemcpyDeviceToHost); d2h.push_back(ms(s));
    s = Clock::now(); cudaError_t e = cudaHostRegister(page, kBytes, 0); reg.push_back(ms(s));
    if (e) printf("register: %s\n", cudaGetErrorString(e));
    s = Clock::now(); cudaHostUnregister(page); unreg.push_back(ms(s));
  }
  report("cudaMemcpy H2D from pinned", h2d); report("cudaMemcpy D2H to pinned", d2h);
  report("cudaHostRegister 64 MiB (faulted in)", reg); report("cudaHostUnregister 64 MiB", unreg);
  FILE* f = fopen("/proc/stat", "r"); char line[256]; if (f && fgets(line, sizeof line, f)) printf("/proc/stat: %s", line);
}

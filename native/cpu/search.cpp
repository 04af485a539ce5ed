// The CPU backend's search (core/search.h). The corpus is read once, where it is: a block of rows at a time, each
// block's scores against every query by the micro-kernel's few-columns product (gemm.h, multiplyRowsInPlace: the
// queries are the few columns, packed once), then each query's k best kept as the blocks go by. The team's threads
// take blocks in turn, each keeping its own k best; those are merged at the end. The order of candidates is total
// (core/search.h), so the result is the same however the blocks fell.
// Through cpuGemm, which packs every block of the corpus first, 100 000×768 against 16 queries took 127 ms on one core,
// the product's time; this way 42 ms (docs/search.md, "Search on the CPU").
#include "cpu/search.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>
#include <vector>

#include "core/core_budget.h"
#include "core/errors.h"
#include "cpu/gemm.h"

namespace cuda_matmul {
namespace {

// Rows per block: 256 rows of 768 values (768 KiB) stay in L2 from the norms' pass (cosine, l2) to the product's,
// which cost cosine 24% over dot with the product first on blocks of 2048, and 6% this way.
constexpr int64_t kBlockRows = 256;
// Below this much work (multiply-adds) another thread costs more than it saves.
constexpr int64_t kWorkPerThread = int64_t{1} << 24;

// The queries as the few-columns product takes them: strips of `width` queries, each d rows of `width` floats
// (element [p][j] of a strip is value p of query j), the last strip padded with zeros.
std::vector<float> packQueries(const float* queries, int64_t m, int64_t d, int width) {
  const int64_t strips = (m + width - 1) / width;
  std::vector<float> packed(static_cast<size_t>(strips * d * width), 0.0f);
  for (int64_t j = 0; j < m; ++j)
    for (int64_t p = 0; p < d; ++p) packed[((j / width) * d + p) * width + j % width] = queries[j * d + p];
  return packed;
}

class Search {
 public:
  // A block's scores (rows × queries), then its rows' normTerm.
  struct Scratch {
    std::vector<float> scores;
    std::vector<double> rowTerms;
  };

  Search(const float* corpus, int64_t rows, const float* queries, const SearchRequest& r)
      : corpus_(corpus), rows_(rows), queries_(queries), r_(r), kernel_(selectMicroKernel()),
        packed_(packQueries(queries, r.queries, r.dims, kernel_.vectorFloats)), queryTerms_(static_cast<size_t>(r.queries)) {
    kernel_.squaredNorms(queries, r.dims, r.queries, r.dims, queryTerms_.data());
    for (double& term : queryTerms_) term = normTerm(r.metric, term);
  }

  int64_t blocks() const { return (rows_ + kBlockRows - 1) / kBlockRows; }

  // One thread's share: blocks taken in turn from `next` until none is left or the call stops; its k best per query
  // into `best`, scratch its block's scores.
  void run(std::atomic<int64_t>& next, std::vector<BestK>& best, Scratch& scratch, const StopSignal& stop) const {
    for (int64_t block = next++; block < blocks() && !stop.requested(); block = next++) scoreBlock(block, best, scratch);
  }

  // Each query's k best over all the threads' shares, into scores and indices.
  void write(std::vector<std::vector<BestK>>& shares, float* scores, uint32_t* indices) const {
    for (int64_t j = 0; j < r_.queries; ++j) {
      BestK& merged = shares[0][j];
      for (size_t t = 1; t < shares.size(); ++t) shares[t][j].offerAllTo(merged);
      merged.write(scores + j * r_.k, indices + j * r_.k);
    }
  }

  std::vector<BestK> newBest() const {
    std::vector<BestK> best;
    best.reserve(static_cast<size_t>(r_.queries));
    for (int64_t j = 0; j < r_.queries; ++j) best.emplace_back(r_.k, r_.metric);
    return best;
  }
  Scratch newScratch() const {
    const int64_t blockRows = std::min(kBlockRows, rows_);
    return {std::vector<float>(static_cast<size_t>(blockRows * r_.queries)), std::vector<double>(static_cast<size_t>(blockRows))};
  }

 private:
  void scoreBlock(int64_t block, std::vector<BestK>& best, Scratch& scratch) const {
    const int64_t m = r_.queries, d = r_.dims, row0 = block * kBlockRows, blockRows = std::min(kBlockRows, rows_ - row0);
    const float* rows = corpus_ + row0 * d;
    const std::vector<float>& scores = scratch.scores;
    if (r_.metric != Metric::Dot) {
      kernel_.squaredNorms(rows, d, blockRows, d, scratch.rowTerms.data());
      for (int64_t i = 0; i < blockRows; ++i) scratch.rowTerms[i] = normTerm(r_.metric, scratch.rowTerms[i]);
    }
    kernel_.multiplyRowsInPlace(rows, d, packed_.data(), blockRows, m, d, scratch.scores.data(), m);
    for (int64_t i = 0; i < blockRows; ++i) {
      const auto row = static_cast<uint32_t>(row0 + i);
      for (int64_t j = 0; j < m; ++j) {
        float score = metricScore(r_.metric, scores[i * m + j], queryTerms_[j], scratch.rowTerms[i]);
        if (r_.metric == Metric::L2 && std::isnan(score)) score = squaredDistance(queries_ + j * d, rows + i * d, d);
        best[j].offer({score, row});
      }
    }
  }

  const float* corpus_;
  int64_t rows_;
  const float* queries_;
  SearchRequest r_;
  const CpuMicroKernel& kernel_;
  std::vector<float> packed_;
  std::vector<double> queryTerms_;
};

}  // namespace

void cpuSearch(const float* corpus, int64_t rows, const float* queries, const SearchRequest& r, float* scores,
               uint32_t* indices) {
  if (r.queries == 0) return;
  const Search search(corpus, rows, queries, r);
  const int64_t work = rows * r.dims * r.queries;
  CoreLease lease(static_cast<int>(std::clamp<int64_t>(work / kWorkPerThread, 1, search.blocks())));
  const StopSignal stop;
  // Every buffer is allocated here, before any thread starts, so a failure is a plain exception to the caller.
  std::vector<std::vector<BestK>> shares;
  std::vector<Search::Scratch> scratch;
  for (int t = 0; t < lease.cores(); ++t) {
    shares.push_back(search.newBest());
    scratch.push_back(search.newScratch());
  }
  std::atomic<int64_t> next{0};
  std::vector<std::thread> helpers;
  helpers.reserve(static_cast<size_t>(lease.cores()));
  try {
    for (int t = 1; t < lease.cores(); ++t)
      helpers.emplace_back([&, t] { search.run(next, shares[t], scratch[t], stop); });
  } catch (...) {
    // The system refused a thread (std::system_error): the others take its blocks.
  }
  lease.shrinkTo(static_cast<int>(helpers.size()) + 1);
  search.run(next, shares[0], scratch[0], stop);
  for (std::thread& helper : helpers) helper.join();
  if (stop.requested()) throw MatmulError(ErrorKind::Failure, "the search was stopped");
  shares.resize(helpers.size() + 1);
  search.write(shares, scores, indices);
}

}  // namespace cuda_matmul

// Exact search (lib/matrix.ts, Matrix#search): for each query, the k rows of a corpus Matrix that score best
// against it, best first. What every backend shares: the metrics, the order of candidates, and the k best of a
// stream of them. docs/search.md says what callers see.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/options.h"

// The scoring below runs in both backends' code: the CPU's and, compiled by nvcc, the GPU's kernels
// (cuda/kernels/select.cu), so that a row scores the same on either.
#if defined(__CUDACC__)
#define SEARCH_SCORING __host__ __device__ inline
#else
#define SEARCH_SCORING inline
#endif

namespace cuda_matmul {

// dot: q·c, larger first. cosine: q·c / (‖q‖·‖c‖), larger first, 0 where either vector is all zeros. l2: ‖q − c‖²,
// smaller first. lib/options.ts lists the same names.
enum class Metric { Dot, Cosine, L2 };
inline constexpr const char* kMetricNames[] = {"dot", "cosine", "l2"};  // by Metric

// 1/‖x‖ from ‖x‖², 0 for a vector of zeros (its cosine with anything is 0).
SEARCH_SCORING double inverseNorm(double squared) { return squared == 0.0 ? 0.0 : 1.0 / sqrt(squared); }

// What the metric needs of a vector besides its dot products: for cosine 1/‖x‖, for l2 ‖x‖², from ‖x‖².
SEARCH_SCORING double normTerm(Metric metric, double squaredNorm) {
  return metric == Metric::Cosine ? inverseNorm(squaredNorm) : squaredNorm;
}

// What the metric makes of a row's dot product with a query, given both vectors' normTerm.
SEARCH_SCORING float metricScore(Metric metric, float dot, double queryTerm, double rowTerm) {
  switch (metric) {
    case Metric::Dot:
      return dot;
    case Metric::Cosine:
      return static_cast<float>(dot * queryTerm * rowTerm);
    case Metric::L2: {
      // ‖q‖² + ‖c‖² − 2q·c rounds below 0 for rows that (nearly) equal the query: the distance is 0 there.
      const auto distance = static_cast<float>(queryTerm + rowTerm - 2.0 * dot);
      return distance < 0.0f ? 0.0f : distance;
    }
  }
  return dot;  // not reached: every metric is a case above
}

// ‖q − c‖² term by term: where the norms' form gives NaN from infinite values (∞ − ∞), this gives what IEEE
// arithmetic makes of the distance itself (∞, or NaN where a value is NaN).
SEARCH_SCORING float squaredDistance(const float* q, const float* c, int64_t d) {
  float sum = 0.0f;
  for (int64_t i = 0; i < d; ++i) sum += (q[i] - c[i]) * (q[i] - c[i]);
  return sum;
}

// The most rows a search returns for each query, on every backend alike: few enough that a query's k best fit one GPU
// block's shared memory (8 KiB of keys).
constexpr int64_t kSearchMaxK = 1024;

// One call: `queries` rows of `dims` floats against the corpus's rows, the `k` best of them for each.
struct SearchRequest {
  int64_t queries = 0, dims = 0, k = 0;
  Metric metric = Metric::Dot;
  Precision precision = Precision::Fp32;
};

// A corpus row and its score against one query.
struct Candidate {
  float score;
  uint32_t row;
};

// The order results come in: the better score first (larger, or smaller for l2), NaN after every number, and equal
// scores by the lower row. A total order, so the k best are the same set in the same order however the rows were
// split among threads or devices.
class CandidateOrder {
 public:
  explicit CandidateOrder(Metric metric) : smallerFirst_(metric == Metric::L2) {}
  bool operator()(const Candidate& x, const Candidate& y) const {
    const bool xNaN = std::isnan(x.score), yNaN = std::isnan(y.score);
    if (xNaN != yNaN) return yNaN;
    if (!xNaN && x.score != y.score) return smallerFirst_ ? x.score < y.score : x.score > y.score;
    return x.row < y.row;
  }

 private:
  bool smallerFirst_;
};

// The k best candidates of those offered, one query's: a heap whose top is the worst one kept, so that a candidate
// that does not beat it costs one comparison.
class BestK {
 public:
  BestK(int64_t k, Metric metric) : k_(static_cast<size_t>(k)), before_(metric) { kept_.reserve(k_); }
  void offer(const Candidate& candidate) {
    if (kept_.size() < k_) {
      kept_.push_back(candidate);
      std::push_heap(kept_.begin(), kept_.end(), before_);
    } else if (before_(candidate, kept_.front())) {
      std::pop_heap(kept_.begin(), kept_.end(), before_);
      kept_.back() = candidate;
      std::push_heap(kept_.begin(), kept_.end(), before_);
    }
  }
  // Offers every candidate kept here to `other`: the k best of two shares of the rows.
  void offerAllTo(BestK& other) const {
    for (const Candidate& candidate : kept_) other.offer(candidate);
  }
  // Best first, into scores[0, k) and rows[0, k). Once: the heap is sorted in place.
  void write(float* scores, uint32_t* rows) {
    std::sort_heap(kept_.begin(), kept_.end(), before_);
    for (size_t i = 0; i < kept_.size(); ++i) {
      scores[i] = kept_[i].score;
      rows[i] = kept_[i].row;
    }
  }

 private:
  size_t k_;
  CandidateOrder before_;
  std::vector<Candidate> kept_;
};

}  // namespace cuda_matmul

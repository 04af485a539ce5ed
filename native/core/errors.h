// Errors raised anywhere in the native layer. Plain C++ (no Node-API) so the CUDA and CPU code can
// throw them too; binding/js_errors.cpp turns them into JavaScript TypeError / RangeError / Error objects.
#pragma once

#include <stdexcept>
#include <string>

namespace cuda_matmul {

enum class ErrorKind { Type, Range, Failure };

class MatmulError : public std::runtime_error {
 public:
  // `code` becomes the JS error's `.code` (e.g. "cudaErrorMemoryAllocation"); empty for none.
  MatmulError(ErrorKind kind, const std::string& message, std::string code = "")
      : std::runtime_error(message), kind_(kind), code_(std::move(code)) {}

  ErrorKind kind() const { return kind_; }
  const std::string& code() const { return code_; }

 private:
  ErrorKind kind_;
  std::string code_;
};

}  // namespace cuda_matmul

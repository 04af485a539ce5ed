#include "binding/arguments.h"

#include <cmath>
#include <array>
#include <cstdint>
#include <span>
#include <string>

#include "core/errors.h"

namespace cuda_matmul {
namespace {

constexpr double kMaxSafeInteger = 9007199254740991.0;  // 2^53 - 1: the largest exact JS integer

[[noreturn]] void fail(ErrorKind kind, const std::string& message) { throw MatmulError(kind, message); }

// A number's text as JavaScript writes it (1e+39, 4.5, NaN): primitives only, so no user code runs.
std::string numberText(const Napi::Value& value) { return value.ToString().Utf8Value(); }

int64_t requireCount(const Napi::Value& value, const char* name) {
  if (!value.IsNumber())
    fail(ErrorKind::Type, std::string(name) + ": expected a non-negative integer, got " + describeValue(value));
  const double d = value.As<Napi::Number>().DoubleValue();
  if (!std::isfinite(d) || d < 0 || d != std::floor(d) || d > kMaxSafeInteger)
    fail(ErrorKind::Range, std::string(name) + ": expected a non-negative integer, got " + numberText(value));
  return static_cast<int64_t>(d);
}

int64_t requireDimension(const Napi::Object& shape, const char* name) { return requireCount(shape.Get(name), name); }

int64_t checkedProduct(int64_t x, int64_t y, const char* what) {
  if (x != 0 && y > static_cast<int64_t>(kMaxSafeInteger) / x)
    fail(ErrorKind::Range, std::string("shape: ") + what + " is too large (it overflows)");
  return x * y;
}

// A result this addon must allocate as a Float32Array: at most kMaxHostLength elements.
void requireAllocatable(int64_t length, const char* what) {
  if (length > kMaxHostLength)
    fail(ErrorKind::Range, std::string("shape: ") + what + " = " + std::to_string(length) +
                               " is more than a Float32Array can hold (" + std::to_string(kMaxHostLength) + ")");
}

void requireLength(const HeldArray& array, const char* name, int64_t expected, const char* formula) {
  if (array.length() != expected)
    fail(ErrorKind::Range, std::string(name) + ": length " + std::to_string(array.length()) + " does not match " +
                               formula + " = " + std::to_string(expected));
}

bool overlaps(const HeldArray& x, const HeldArray& y) {
  const auto* xBegin = reinterpret_cast<const char*>(x.data());
  const auto* yBegin = reinterpret_cast<const char*>(y.data());
  return xBegin < yBegin + y.bytes() && yBegin < xBegin + x.bytes() && x.bytes() > 0 && y.bytes() > 0;
}

std::string optionalString(const Napi::Value& value, const char* name) {
  if (value.IsUndefined()) return "";
  if (!value.IsString()) fail(ErrorKind::Type, std::string(name) + ": expected a string, got " + describeValue(value));
  return value.As<Napi::String>().Utf8Value();
}

// One of `names` (an option table of core/options.h), as the enum it indexes, else a RangeError listing them.
template <class Enum>
Enum parseChoice(const std::string& text, const char* option, std::span<const char* const> names, Enum fallback) {
  if (text.empty()) return fallback;
  std::string expected;
  for (size_t i = 0; i < names.size(); ++i) {
    if (text == names[i]) return static_cast<Enum>(i);
    expected += std::string(expected.empty() ? "" : ", ") + "'" + names[i] + "'";
  }
  fail(ErrorKind::Range, std::string(option) + ": expected " + expected + ", got '" + text + "'");
}

constexpr auto kKernelNames = [] {
  std::array<const char*, kKernelCount> names{};
  for (size_t i = 0; i < kKernelCount; ++i) names[i] = kKernelOptions[i].name;
  return names;
}();

// kernel and precision (core/options.h): every kernel takes both precisions.
Backend parseBackend(const Napi::Value& value) {
  return parseChoice(optionalString(value, "backend"), "backend", kBackendNames, Backend::Auto);
}

void parseKernelAndPrecision(const Napi::Object& options, Kernel& kernel, Precision& precision) {
  kernel = parseKernel(options.Get("kernel"));
  precision = parsePrecision(options.Get("precision"));
}


int parseDevice(const Napi::Object& options) {
  const Napi::Value value = options.Get("device");
  if (value.IsUndefined()) return 0;
  if (!value.IsNumber()) fail(ErrorKind::Type, "device: expected a non-negative integer, got " + describeValue(value));
  const double d = value.As<Napi::Number>().DoubleValue();
  if (!std::isfinite(d) || d < 0 || d != std::floor(d) || d > INT32_MAX)
    fail(ErrorKind::Range, "device: expected a non-negative integer, got " + numberText(value));
  return static_cast<int>(d);
}

Choice parseChoiceOptions(const Napi::Object& options) {
  Choice choice;
  choice.backend = parseBackend(options.Get("backend"));
  parseKernelAndPrecision(options, choice.kernel, choice.precision);
  choice.device = parseDevice(options);
  return choice;
}

void rejectUnknownOptions(const Napi::Object& options, std::initializer_list<const char*> known) {
  const Napi::Array names = options.GetPropertyNames();
  for (uint32_t i = 0; i < names.Length(); ++i) {
    const Napi::Value key = names.Get(i);
    const std::string name = key.IsString() ? key.As<Napi::String>().Utf8Value() : describeValue(key);
    bool found = false;
    for (const char* k : known) found = found || name == k;
    if (!found) fail(ErrorKind::Type, "options: unknown option '" + name + "'");
  }
}

Napi::Object optionsObject(const Napi::Value& value) {
  if (value.IsUndefined()) return Napi::Object::New(value.Env());
  if (!value.IsObject() || value.IsArray() || value.IsFunction())
    fail(ErrorKind::Type, "options: expected an object, got " + describeValue(value));
  return value.As<Napi::Object>();
}

bool optionalBoolean(const Napi::Object& args, const char* name) {
  const Napi::Value value = args.Get(name);
  if (value.IsUndefined()) return false;
  if (!value.IsBoolean()) fail(ErrorKind::Type, std::string(name) + ": expected a boolean, got " + describeValue(value));
  return value.As<Napi::Boolean>().Value();
}

// A scalar the kernels take as a float: finite, and within float's range (neither overflowing to ±Infinity
// nor a non-zero value underflowing to 0), so it is never silently changed into something else.
float optionalScalar(const Napi::Object& args, const char* name, float fallback) {
  const Napi::Value value = args.Get(name);
  if (value.IsUndefined()) return fallback;
  if (!value.IsNumber()) fail(ErrorKind::Type, std::string(name) + ": expected a finite number, got " + describeValue(value));
  const double d = value.As<Napi::Number>().DoubleValue();
  if (!std::isfinite(d)) fail(ErrorKind::Range, std::string(name) + ": expected a finite number, got " + numberText(value));
  const float f = static_cast<float>(d);
  if (std::isinf(f) || (d != 0 && f == 0))
    fail(ErrorKind::Range, std::string(name) + ": " + numberText(value) +
                               " is outside float32's range (magnitudes from 1.4e-45 to 3.4e38, or 0)");
  return f;
}

int64_t optionalCount(const Napi::Object& args, const char* name, int64_t fallback) {
  const Napi::Value value = args.Get(name);
  return value.IsUndefined() ? fallback : requireCount(value, name);
}

// The elements `batch` strided entries of `each` elements span: (batch − 1)·stride + each.
int64_t stridedSpan(int64_t batch, int64_t stride, int64_t each, const char* what) {
  if (batch == 0) return 0;
  const int64_t steps = checkedProduct(batch - 1, stride, what);
  if (steps > static_cast<int64_t>(kMaxSafeInteger) - each) fail(ErrorKind::Range, std::string("shape: ") + what + " is too large (it overflows)");
  return steps + each;
}

void requireAtLeast(const HeldArray& array, const char* name, int64_t needed) {
  if (array.length() < needed)
    fail(ErrorKind::Range, std::string(name) + ": length " + std::to_string(array.length()) +
                               " is too short: batch, strides and shape need " + std::to_string(needed));
}

// Points the request at the call's three arrays and records which are page-locked (allocHost memory the GPU
// may copy straight from or into).
void pointAt(GemmRequest& r, const HeldArray& a, const HeldArray& b, const HeldArray& c) {
  r.a = a.data();
  r.b = b.data();
  r.c = c.data();
  r.pinnedA = a.pinned();
  r.pinnedB = b.pinned();
  r.pinnedC = c.pinned();
}

}  // namespace

Kernel parseKernel(const Napi::Value& value) {
  return parseChoice(optionalString(value, "kernel"), "kernel", kKernelNames, Kernel::Auto);
}
Precision parsePrecision(const Napi::Value& value) {
  return parseChoice(optionalString(value, "precision"), "precision", kPrecisionNames, Precision::Fp32);
}

Metric parseMetric(const Napi::Value& value) {
  return parseChoice(optionalString(value, "metric"), "metric", kMetricNames, Metric::Dot);
}

std::string describeValue(const Napi::Value& value) {
  if (value.IsNull()) return "null";
  if (value.IsUndefined()) return "undefined";
  if (value.IsString()) return "a string";
  if (value.IsNumber()) return "a number";
  if (value.IsBoolean()) return "a boolean";
  if (value.IsArray()) return "an Array";
  if (value.IsDataView()) return "a DataView";
  if (value.IsTypedArray()) {
    static const char* const names[] = {"Int8Array",   "Uint8Array",   "Uint8ClampedArray", "Int16Array",
                                        "Uint16Array", "Int32Array",   "Uint32Array",       "Float32Array",
                                        "Float64Array", "BigInt64Array", "BigUint64Array"};
    const auto type = static_cast<size_t>(value.As<Napi::TypedArray>().TypedArrayType());
    return std::string("a ") + (type < sizeof names / sizeof *names ? names[type] : "typed array");
  }
  if (value.IsFunction()) return "a function";
  return "an object";
}

ArrayCall parseMatmulCall(const Napi::CallbackInfo& info) {
  ArrayCall call;
  call.cName = "out";
  GemmRequest& r = call.request;
  // Scalars first, each read once.
  if (!info[2].IsObject() || info[2].IsArray())
    fail(ErrorKind::Type, "shape: expected an object { m, k, n }, got " + describeValue(info[2]));
  const auto shape = info[2].As<Napi::Object>();
  r.shape.m = requireDimension(shape, "m");
  r.shape.k = requireDimension(shape, "k");
  r.shape.n = requireDimension(shape, "n");
  const int64_t aLength = checkedProduct(r.shape.m, r.shape.k, "m·k");
  const int64_t bLength = checkedProduct(r.shape.k, r.shape.n, "k·n");
  const int64_t outLength = checkedProduct(r.shape.m, r.shape.n, "m·n");
  const Napi::Object options = optionsObject(info[3]);
  rejectUnknownOptions(options, {"backend", "kernel", "precision", "out", "device"});
  r.choice = parseChoiceOptions(options);
  const Napi::Value out = options.Get("out");
  if (out.IsUndefined()) requireAllocatable(outLength, "m·n");

  // Then the arrays; no JavaScript runs from here on.
  call.a = HeldArray::takeInput(info[0], "a");
  call.b = HeldArray::takeInput(info[1], "b");
  requireLength(call.a, "a", aLength, "m·k");
  requireLength(call.b, "b", bLength, "k·n");
  if (out.IsUndefined()) {
    call.c = HeldArray::takeOutput(Napi::Float32Array::New(info.Env(), static_cast<size_t>(outLength)), "out");
  } else {
    call.c = HeldArray::takeOutput(out, "out");
    requireLength(call.c, "out", outLength, "m·n");
    if (overlaps(call.c, call.a) || overlaps(call.c, call.b))
      fail(ErrorKind::Range, "out: must not share memory with a or b (inputs are never modified)");
  }
  pointAt(r, call.a, call.b, call.c);
  return call;
}

GatheredCall parseGatheredCall(const Napi::CallbackInfo& info) {
  GatheredCall call;
  SmallProduct& p = call.product;
  p.m = requireCount(info[2], "m");
  p.k = requireCount(info[3], "k");
  p.n = requireCount(info[4], "n");
  const int64_t floats = checkedProduct(p.m, p.k, "m·k") + checkedProduct(p.k, p.n, "k·n") + checkedProduct(p.m, p.n, "m·n");
  if (floats > kGatheredMaxFloats || p.k > kGatheredMaxDepth)
    fail(ErrorKind::Range, "shape: a gathered product holds at most " + std::to_string(kGatheredMaxFloats) +
                               " elements of A, B and C together, with k at most " + std::to_string(kGatheredMaxDepth));
  call.a = HeldArray::takeInput(info[0], "a");
  call.b = HeldArray::takeInput(info[1], "b");
  call.c = HeldArray::takeInput(info[5], "out");  // the JavaScript layer resolves it
  requireLength(call.a, "a", p.m * p.k, "m·k");
  requireLength(call.b, "b", p.k * p.n, "k·n");
  requireLength(call.c, "out", p.m * p.n, "m·n");
  if (overlaps(call.c, call.a) || overlaps(call.c, call.b))
    fail(ErrorKind::Range, "out: must not share memory with a or b (inputs are never modified)");
  p.a = call.a.data();
  p.b = call.b.data();
  p.c = call.c.data();
  return call;
}

int64_t parseGatheredCount(const Napi::Value& value, int64_t gathered) {
  const int64_t count = requireCount(value, "count");
  if (count > gathered)
    fail(ErrorKind::Range, "count: " + std::to_string(count) + " products asked for, " + std::to_string(gathered) + " gathered");
  return count;
}

MatrixSource parseMatrixSource(const Napi::CallbackInfo& info) {
  const int64_t rows = requireCount(info[1], "rows");
  const int64_t cols = requireCount(info[2], "cols");
  const int64_t length = checkedProduct(rows, cols, "rows·cols");
  const Napi::Object options = optionsObject(info[3]);
  rejectUnknownOptions(options, {"backend", "device"});
  Choice choice;
  choice.backend = parseBackend(options.Get("backend"));
  choice.device = parseDevice(options);
  HeldArray data = HeldArray::takeInput(info[0], "data");
  requireLength(data, "data", length, "rows·cols");
  return {std::move(data), rows, cols, choice};
}

MatrixProductOptions parseMatrixProductOptions(const Napi::Value& value) {
  const Napi::Object options = optionsObject(value);
  rejectUnknownOptions(options, {"kernel", "precision", "out"});
  Kernel kernel;
  Precision precision;
  parseKernelAndPrecision(options, kernel, precision);
  return {kernel, precision, options.Get("out")};
}

HeldArray parseMatrixDestination(const Napi::Value& value, int64_t length) {
  HeldArray out = HeldArray::takeOutput(value, "out");
  requireLength(out, "out", length, "rows·cols");
  return out;
}

int64_t parseSearchCount(const Napi::Value& value) { return requireCount(value, "k"); }

SearchDestination parseSearchDestination(const Napi::Value& scores, const Napi::Value& indices, int64_t length) {
  SearchDestination destination{HeldArray::takeInput(scores, "scores"), HeldArray::takeInput(indices, "indices")};
  requireLength(destination.scores, "scores", length, "queries·k");
  requireLength(destination.indices, "indices", length, "queries·k");
  return destination;
}

GemmShape parseGemmShape(const Napi::Object& args) {
  GemmShape shape;
  shape.m = requireDimension(args, "m");
  shape.k = requireDimension(args, "k");
  shape.n = requireDimension(args, "n");
  shape.transA = optionalBoolean(args, "transA");
  shape.transB = optionalBoolean(args, "transB");
  shape.alpha = optionalScalar(args, "alpha", 1.0f);
  shape.beta = optionalScalar(args, "beta", 0.0f);
  return shape;
}

RowBatch parseRowBatch(const Napi::Object& args, const GemmShape& shape) {
  const int64_t rowsA = shape.transA ? shape.k : shape.m, rowsB = shape.transB ? shape.n : shape.k;
  RowBatch batch;
  batch.count = optionalCount(args, "batch", 1);
  batch.strideA = optionalCount(args, "strideA", rowsA);
  batch.strideB = optionalCount(args, "strideB", rowsB);
  batch.strideC = optionalCount(args, "strideC", shape.m);
  if (batch.count > 1 && batch.strideC < shape.m)
    fail(ErrorKind::Range, "strideC: " + std::to_string(batch.strideC) + " rows would make the batch's results overlap (m = " +
                               std::to_string(shape.m) + ")");
  batch.spanA = stridedSpan(batch.count, batch.strideA, rowsA, "batch·strideA");
  batch.spanB = stridedSpan(batch.count, batch.strideB, rowsB, "batch·strideB");
  batch.spanC = stridedSpan(batch.count, batch.strideC, shape.m, "batch·strideC");
  return batch;
}

ArrayCall parseGemmCall(const Napi::CallbackInfo& info) {
  if (!info[0].IsObject() || info[0].IsArray())
    fail(ErrorKind::Type, "args: expected an object { a, b, c, m, k, n, … }, got " + describeValue(info[0]));
  const auto args = info[0].As<Napi::Object>();
  rejectUnknownOptions(args, {"a", "b", "c", "m", "k", "n", "transA", "transB", "alpha", "beta", "batch", "strideA",
                              "strideB", "strideC"});
  ArrayCall call;
  call.cName = "c";
  GemmRequest& r = call.request;
  // Scalars first, each read once; the array values are read here too, and taken only after the options.
  const Napi::Value a = args.Get("a"), b = args.Get("b"), c = args.Get("c");
  r.shape = parseGemmShape(args);
  const int64_t mk = checkedProduct(r.shape.m, r.shape.k, "m·k"), kn = checkedProduct(r.shape.k, r.shape.n, "k·n");
  const int64_t mn = checkedProduct(r.shape.m, r.shape.n, "m·n");
  r.batch = optionalCount(args, "batch", 1);
  r.strideA = optionalCount(args, "strideA", mk);
  r.strideB = optionalCount(args, "strideB", kn);
  r.strideC = optionalCount(args, "strideC", mn);
  if (r.batch > 1 && r.strideC < mn)
    fail(ErrorKind::Range, "strideC: " + std::to_string(r.strideC) + " would make the batch's results overlap (m·n = " +
                               std::to_string(mn) + ")");
  const int64_t spanA = stridedSpan(r.batch, r.strideA, mk, "batch·strideA");
  const int64_t spanB = stridedSpan(r.batch, r.strideB, kn, "batch·strideB");
  const int64_t spanC = stridedSpan(r.batch, r.strideC, mn, "batch·strideC");
  const Napi::Object options = optionsObject(info[1]);
  rejectUnknownOptions(options, {"backend", "kernel", "precision", "device"});
  r.choice = parseChoiceOptions(options);

  call.a = HeldArray::takeInput(a, "a");
  call.b = HeldArray::takeInput(b, "b");
  call.c = HeldArray::takeOutput(c, "c");
  requireAtLeast(call.a, "a", spanA);
  requireAtLeast(call.b, "b", spanB);
  requireAtLeast(call.c, "c", spanC);
  if (overlaps(call.c, call.a) || overlaps(call.c, call.b))
    fail(ErrorKind::Range, "c: must not share memory with a or b (they are read while it is written)");
  pointAt(r, call.a, call.b, call.c);
  return call;
}

int64_t parseHostLength(const Napi::Value& value) {
  const int64_t length = requireCount(value, "length");
  if (length > kMaxHostLength)
    fail(ErrorKind::Range, "length: " + std::to_string(length) + " is more than a Float32Array can hold (" +
                               std::to_string(kMaxHostLength) + ")");
  return length;
}

Napi::Float32Array requireFloat32Array(const Napi::Value& value, const char* name) {
  if (!value.IsTypedArray() || value.As<Napi::TypedArray>().TypedArrayType() != napi_float32_array) {
    // Float32Array.from is the right advice for a flat array or a typed array of numbers; of nested arrays it makes
    // NaNs, of a Buffer a float per byte (lib/validate.ts says what to do with those).
    const bool nested = value.IsArray() && value.As<Napi::Array>().Length() > 0 && value.As<Napi::Array>().Get(0u).IsArray();
    const bool convertible = (value.IsArray() && !nested) || (value.IsTypedArray() && !value.IsBuffer());
    fail(ErrorKind::Type, std::string(name) + ": expected a Float32Array, got " + describeValue(value) +
                              (convertible ? std::string(" (convert it with Float32Array.from(") + name + "))" : ""));
  }
  auto array = value.As<Napi::Float32Array>();
  if (array.ArrayBuffer().IsDetached())
    fail(ErrorKind::Type, std::string(name) + ": its ArrayBuffer is detached (transferred or freed)");
  return array;
}

Napi::Float32Array parseHostArray(const Napi::Value& value) { return requireFloat32Array(value, "array"); }

}  // namespace cuda_matmul

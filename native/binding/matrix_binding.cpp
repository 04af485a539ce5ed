#include "binding/matrix_binding.h"

#include <memory>

#include "binding/abort_binding.h"
#include "binding/arguments.h"
#include "binding/async_task.h"
#include "binding/environment.h"
#include "binding/held_array.h"
#include "core/errors.h"
#include "binding/js_errors.h"
#include "binding/completion.h"
#include "core/plan.h"

namespace cuda_matmul {
namespace {

// Marks the objects this file made as NativeMatrix wrappers: a tag check costs a fraction of the InstanceOf
// (a prototype walk in JavaScript) it replaces, on every Matrix operation.
constexpr napi_type_tag kNativeMatrixTag = {0x6a7c1b3e5d2f4a91ULL, 0x8e0b62c4f19d7a53ULL};

class NativeMatrix : public Napi::ObjectWrap<NativeMatrix> {
 public:
  static Napi::Function define(Napi::Env env) {
    return DefineClass(env, "NativeMatrix",
                       {InstanceAccessor<&NativeMatrix::rows>("rows"), InstanceAccessor<&NativeMatrix::cols>("cols"),
                        InstanceAccessor<&NativeMatrix::backend>("backend"),
                        InstanceAccessor<&NativeMatrix::device>("device"),
                        InstanceAccessor<&NativeMatrix::disposed>("disposed"),
                        InstanceMethod<&NativeMatrix::dispose>("dispose")});
  }

  static Napi::Object wrap(Napi::Env env, std::shared_ptr<MatrixData> data) {
    Napi::Object object = AddonEnvironment::of(env).matrixConstructor.New({});
    object.TypeTag(&kNativeMatrixTag);
    Unwrap(object)->data_ = std::move(data);
    return object;
  }

  // The live data of a NativeMatrix argument, or a TypeError naming it.
  static std::shared_ptr<MatrixData> require(const Napi::Value& value, const char* name) {
    if (!value.IsObject() || !value.As<Napi::Object>().CheckTypeTag(&kNativeMatrixTag))
      throw MatmulError(ErrorKind::Type, std::string(name) + ": expected a Matrix");
    std::shared_ptr<MatrixData> data = Unwrap(value.As<Napi::Object>())->data_;
    if (!data) throw MatmulError(ErrorKind::Type, std::string(name) + ": this Matrix was disposed");
    return data;
  }

  explicit NativeMatrix(const Napi::CallbackInfo& info) : Napi::ObjectWrap<NativeMatrix>(info) {}

 private:
  const MatrixData& live(const Napi::Env& env) const {
    if (!data_) throw Napi::TypeError::New(env, "matrix: this Matrix was disposed");
    return *data_;
  }
  Napi::Value rows(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), double(live(info.Env()).rows)); }
  Napi::Value cols(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), double(live(info.Env()).cols)); }
  Napi::Value device(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), live(info.Env()).device); }
  Napi::Value backend(const Napi::CallbackInfo& info) {
    return Napi::String::New(info.Env(), live(info.Env()).backend->kind() == Backend::Cuda ? "cuda" : "cpu");
  }
  Napi::Value disposed(const Napi::CallbackInfo& info) { return Napi::Boolean::New(info.Env(), !data_); }
  // Frees the elements now, or when the last task using them ends. Disposing twice is harmless.
  Napi::Value dispose(const Napi::CallbackInfo& info) {
    data_.reset();
    return info.Env().Undefined();
  }

  std::shared_ptr<MatrixData> data_;  // the GC frees it with the object, if dispose() was never called
};

// matrixFrom(data: Float32Array, rows, cols, { backend, device }) → Promise<NativeMatrix>. A new Matrix is
// ordered after nothing: it is uploaded on the thread pool and exists once the Promise resolves.
Napi::Value MatrixFrom(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    struct Pending {
      MatrixSource source;
      std::shared_ptr<MatrixData> result;
    };
    std::shared_ptr<CallAbort> abort = parseAbort(info[4]);
    auto pending = std::make_shared<Pending>(Pending{parseMatrixSource(info), nullptr});
    return queueTask(
        info.Env(), "cuda-matmul:Matrix.from",
        [pending] {
          const MatrixSource& s = pending->source;
          pending->result = uploadMatrix(s.data.data(), s.rows, s.cols, s.choice, s.data.pinned());
        },
        [pending, abort](Napi::Env env) -> Napi::Value {
          if (abort && abort->requested()) throw abortedError();  // the new Matrix is freed with `pending`
          return NativeMatrix::wrap(env, pending->result);
        },
        abort);
  });
}

// The operations below are queued in program order when the call is made (core/plan.h) and settle when done.

// matrixMultiply(a: NativeMatrix, b: NativeMatrix, out?: NativeMatrix, kernel?: string, precision?: string)
//   → Promise<NativeMatrix>
// Positional, not an options object: reading and checking an object's keys took a fifth of the call's time
// (docs/matrices.md, "A Matrix call's host time"); lib/matrix.ts has read the user's options.
Napi::Value MatrixMultiply(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    auto a = NativeMatrix::require(info[0], "a");
    auto b = NativeMatrix::require(info[1], "b");
    std::shared_ptr<MatrixData> out;
    Napi::Reference<Napi::Object> outObject;
    if (!info[2].IsUndefined()) {
      out = NativeMatrix::require(info[2], "out");
      outObject = Napi::Persistent(info[2].As<Napi::Object>());
    }
    const Kernel kernel = parseKernel(info[3]);
    const Precision precision = parsePrecision(info[4]);
    std::shared_ptr<CallAbort> abort = parseAbort(info[5]);
    checkMatrixProduct(*a, *b, out.get());  // before anything is allocated
    // A write into `out` is withdrawn whole by an abort; a new Matrix is simply never handed out.
    std::shared_ptr<CallAbort> withdrawable = out ? abort : nullptr;
    if (!out) out = allocateMatrixLike(*a, a->rows, b->cols);
    const GemmShape shape = productShape(*a, *b);
    auto work = enqueueMatrixGemm(*a, *b, *out, shape, singleProduct(shape), kernel, precision, std::move(withdrawable));
    auto object = std::make_shared<Napi::Reference<Napi::Object>>(std::move(outObject));
    return complete(
        info.Env(), "cuda-matmul:Matrix.matmul", std::move(work),
        [out, object](Napi::Env env) -> Napi::Value { return object->IsEmpty() ? NativeMatrix::wrap(env, out) : object->Value(); },
        std::move(abort));
  });
}

// matrixToArray(m: NativeMatrix, out: Float32Array of rows·cols) → Promise<Float32Array>
Napi::Value MatrixToArray(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    auto matrix = NativeMatrix::require(info[0], "matrix");
    std::shared_ptr<CallAbort> abort = parseAbort(info[2]);
    auto out = std::make_shared<HeldArray>(parseMatrixDestination(info[1], matrix->rows * matrix->cols));
    return complete(info.Env(), "cuda-matmul:Matrix.toArray", enqueueMatrixDownload(*matrix, out->data(), out->pinned()),
                    [out](Napi::Env) { return out->delivered("out"); }, std::move(abort));
  });
}

// matrixGemm(a, b, c: NativeMatrix, { m, k, n, transA, transB, alpha, beta, batch, strideA, strideB, strideC },
//            { kernel, precision }) → Promise<c>
Napi::Value MatrixGemm(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    auto a = NativeMatrix::require(info[0], "a");
    auto b = NativeMatrix::require(info[1], "b");
    auto c = NativeMatrix::require(info[2], "c");
    if (!info[3].IsObject()) throw MatmulError(ErrorKind::Type, "shape: expected an object { m, k, n, … }");
    const GemmShape shape = parseGemmShape(info[3].As<Napi::Object>());
    const RowBatch batch = parseRowBatch(info[3].As<Napi::Object>(), shape);
    const MatrixProductOptions options = parseMatrixProductOptions(info[4]);
    if (!options.out.IsUndefined()) throw MatmulError(ErrorKind::Type, "options: unknown option 'out' (gemm writes c)");
    std::shared_ptr<CallAbort> abort = parseAbort(info[5]);
    checkMatrixGemm(*a, *b, *c, shape, batch);
    auto work = enqueueMatrixGemm(*a, *b, *c, shape, batch, options.kernel, options.precision, abort);
    auto cObject = std::make_shared<Napi::Reference<Napi::Object>>(Napi::Persistent(info[2].As<Napi::Object>()));
    return complete(info.Env(), "cuda-matmul:Matrix gemm", std::move(work),
                    [cObject](Napi::Env) -> Napi::Value { return cObject->Value(); }, std::move(abort));
  });
}

// A search's queries: a NativeMatrix, or a Float32Array of rows of the corpus's width, copied now, on the calling
// thread, to where the corpus lives (lib/matrix.ts passes arrays for CPU corpora, and for a GPU the at most 16
// queries it gathers: a small copy, so that a search is queued when the call is made).
std::shared_ptr<MatrixData> searchQueries(const Napi::Value& value, const MatrixData& corpus) {
  if (!value.IsTypedArray()) return NativeMatrix::require(value, "queries");
  const HeldArray held = HeldArray::takeInput(value, "queries");
  if (held.length() % corpus.cols != 0)
    throw MatmulError(ErrorKind::Range, "queries: length " + std::to_string(held.length()) +
                                            " is not a whole number of rows of the corpus's " + std::to_string(corpus.cols) + " values");
  const Choice where{corpus.backend->kind(), Kernel::Auto, Precision::Fp32, corpus.device};
  return uploadMatrix(held.data(), held.length() / corpus.cols, corpus.cols, where, held.pinned());
}

// matrixSearch(corpus: NativeMatrix, queries: NativeMatrix | Float32Array, k, metric?, precision?, scores, indices,
//              abort?) → Promise<undefined> (arguments.h, parseSearchDestination): queued as a read of both, like a
// product.
Napi::Value MatrixSearch(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    auto corpus = NativeMatrix::require(info[0], "corpus");
    const int64_t k = parseSearchCount(info[2]);
    const Metric metric = parseMetric(info[3]);
    const Precision precision = parsePrecision(info[4]);
    std::shared_ptr<CallAbort> abort = parseAbort(info[7]);
    checkSearchCorpus(*corpus, k);
    auto queries = searchQueries(info[1], *corpus);
    checkSearchQueries(*corpus, *queries);
    const SearchRequest request{queries->rows, corpus->cols, k, metric, precision};
    auto results = std::make_shared<SearchDestination>(parseSearchDestination(info[5], info[6], request.queries * request.k));
    auto work = enqueueMatrixSearch(*corpus, *queries, request, results->scores.data(),
                                    reinterpret_cast<uint32_t*>(results->indices.data()));
    return complete(info.Env(), "cuda-matmul:Matrix.search", std::move(work),
                    [results](Napi::Env env) -> Napi::Value { return env.Undefined(); }, std::move(abort));
  });
}

}  // namespace

void initMatrixBinding(Napi::Env env, Napi::Object exports) {
  Napi::FunctionReference& constructor = AddonEnvironment::of(env).matrixConstructor;
  constructor = Napi::Persistent(NativeMatrix::define(env));
  exports.Set("NativeMatrix", constructor.Value());
  exports.Set("matrixFrom", Napi::Function::New(env, MatrixFrom, "matrixFrom"));
  exports.Set("matrixMultiply", Napi::Function::New(env, MatrixMultiply, "matrixMultiply"));
  exports.Set("matrixToArray", Napi::Function::New(env, MatrixToArray, "matrixToArray"));
  exports.Set("matrixGemm", Napi::Function::New(env, MatrixGemm, "matrixGemm"));
  exports.Set("matrixSearch", Napi::Function::New(env, MatrixSearch, "matrixSearch"));
}

}  // namespace cuda_matmul

#include "matrix_binding.h"

#include <memory>

#include "arguments.h"
#include "async_task.h"
#include "environment.h"
#include "errors.h"
#include "js_errors.h"
#include "matmul_worker.h"
#include "plan.h"

namespace cuda_matmul {
namespace {

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
    Unwrap(object)->data_ = std::move(data);
    return object;
  }

  // The live data of a NativeMatrix argument, or a TypeError naming it.
  static std::shared_ptr<MatrixData> require(const Napi::Value& value, const char* name) {
    const Napi::FunctionReference& constructor = AddonEnvironment::of(value.Env()).matrixConstructor;
    if (!value.IsObject() || !value.As<Napi::Object>().InstanceOf(constructor.Value()))
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
    return Napi::String::New(info.Env(), live(info.Env()).backend == Backend::Cuda ? "cuda" : "cpu");
  }
  Napi::Value disposed(const Napi::CallbackInfo& info) { return Napi::Boolean::New(info.Env(), !data_); }
  // Frees the elements now, or when the last task using them ends. Disposing twice is harmless.
  Napi::Value dispose(const Napi::CallbackInfo& info) {
    data_.reset();
    return info.Env().Undefined();
  }

  std::shared_ptr<MatrixData> data_;  // the GC frees it with the object, if dispose() was never called
};

// matrixFrom(data: Float32Array, rows, cols, { backend, device }) → Promise<NativeMatrix>
Napi::Value MatrixFrom(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    struct Pending {
      MatrixSource source;
      std::shared_ptr<MatrixData> result;
    };
    auto pending = std::make_shared<Pending>(Pending{parseMatrixSource(info), nullptr});
    return queueTask(
        info.Env(), "cuda-matmul:Matrix.from",
        [pending] {
          const MatrixSource& s = pending->source;
          pending->result = runMatrixUpload(s.data.data(), s.rows, s.cols, s.backend, s.device, s.data.pinned());
        },
        [pending](Napi::Env env) -> Napi::Value { return NativeMatrix::wrap(env, pending->result); });
  });
}

// matrixMultiply(a: NativeMatrix, b: NativeMatrix, { kernel, precision, out?: NativeMatrix }) → Promise<NativeMatrix>
Napi::Value MatrixMultiply(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    auto a = NativeMatrix::require(info[0], "a");
    auto b = NativeMatrix::require(info[1], "b");
    const MatrixProductOptions options = parseMatrixProductOptions(info[2]);
    std::shared_ptr<MatrixData> out;
    Napi::Reference<Napi::Object> outObject;
    if (!options.out.IsUndefined()) {
      out = NativeMatrix::require(options.out, "out");
      outObject = Napi::Persistent(options.out.As<Napi::Object>());
    }
    checkMatrixProduct(*a, *b, out.get());  // before anything is allocated
    struct Pending {
      std::shared_ptr<MatrixData> a, b, out;
      Napi::Reference<Napi::Object> outObject;
    };
    auto pending = std::make_shared<Pending>(Pending{a, b, out, std::move(outObject)});
    return queueTask(
        info.Env(), "cuda-matmul:Matrix.matmul",
        [pending, kernel = options.kernel, precision = options.precision] {
          if (!pending->out) pending->out = allocateMatrixLike(*pending->a, pending->a->rows, pending->b->cols);
          runMatrixProduct(*pending->a, *pending->b, *pending->out, kernel, precision);
        },
        [pending](Napi::Env env) -> Napi::Value {
          return pending->outObject.IsEmpty() ? NativeMatrix::wrap(env, pending->out) : pending->outObject.Value();
        });
  });
}

// matrixToArray(m: NativeMatrix, out: Float32Array of rows·cols) → Promise<Float32Array>
Napi::Value MatrixToArray(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    struct Pending {
      std::shared_ptr<MatrixData> matrix;
      HeldArray out;
    };
    auto matrix = NativeMatrix::require(info[0], "matrix");
    auto pending = std::make_shared<Pending>(Pending{matrix, parseMatrixDestination(info[1], matrix->rows * matrix->cols)});
    return queueTask(
        info.Env(), "cuda-matmul:Matrix.toArray",
        [pending] { runMatrixDownload(*pending->matrix, pending->out.data(), pending->out.pinned()); },
        [pending](Napi::Env) { return deliveredOutput(pending->out, "out"); });
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
    checkMatrixGemm(*a, *b, *c, shape, batch);
    struct Pending {
      std::shared_ptr<MatrixData> a, b, c;
      Napi::Reference<Napi::Object> cObject;
    };
    auto pending = std::make_shared<Pending>(Pending{a, b, c, Napi::Persistent(info[2].As<Napi::Object>())});
    return queueTask(
        info.Env(), "cuda-matmul:Matrix gemm",
        [pending, shape, batch, kernel = options.kernel, precision = options.precision] {
          runMatrixGemm(*pending->a, *pending->b, *pending->c, shape, batch, kernel, precision);
        },
        [pending](Napi::Env) -> Napi::Value { return pending->cObject.Value(); });
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
}

}  // namespace cuda_matmul

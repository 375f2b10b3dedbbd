/* ttune_model.h: the C API of a model exported by `ttune export` (libNAME.so / libNAME.a).
 *
 * An exported library holds one model: its compiled kernels, its execution plan and ttune's
 * small runtime (thread pool). Its weights are in a side file, NAME.weights, loaded by
 * ttune_model_create. Contract (docs/deploy.md):
 *
 * - Errors: functions return TTUNE_OK (0) or an error code (NULL for ttune_model_create);
 *   ttune_last_error() then gives one sentence saying what is wrong. No function aborts or
 *   crashes on a bad argument (null pointers, a missing or corrupt weights file, a negative
 *   thread count, an unsupported CPU).
 * - Ownership: the caller owns every buffer it passes; a model owns its weights and workspace
 *   until ttune_model_destroy. Strings and shapes returned by the library live as long as the
 *   model (names, shapes) or until the next failing call on the same thread (ttune_last_error).
 * - Threading: every function may be called from any thread. Runs of one model are serialized
 *   (each model has one workspace); create one model per thread for concurrent runs. All models
 *   of a library share its thread pool, which runs one parallel region at a time.
 * - Sizes: a model exported for ranges of sizes (`ttune export --dim seq=1..512`) takes inputs
 *   of any size in its ranges, with no compilation after load. Its size parameters (names,
 *   ranges, the input axis each is read from) come from ttune_model_size_info; its tensors' info
 *   reports -1 for the dimensions that follow a size, and the elements and bytes at the largest
 *   sizes (a buffer that large holds the tensor at any size). Run it with ttune_model_run_shaped,
 *   giving each input's shape; ttune_model_output_shape says what each output's will be. A size
 *   out of its range or a shape the sizes do not give is an error naming the input or size.
 * - Versioning: TTUNE_ABI_VERSION changes when any declaration here changes incompatibly.
 *   Check ttune_abi_version() == TTUNE_ABI_VERSION before using a library found at run time.
 */
#ifndef TTUNE_TTUNE_MODEL_H
#define TTUNE_TTUNE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TTUNE_ABI_VERSION 1

#if defined(__GNUC__)
#define TTUNE_API __attribute__((visibility("default")))
#else
#define TTUNE_API
#endif

typedef struct ttune_model ttune_model;

typedef enum ttune_status {
  TTUNE_OK = 0,
  TTUNE_ERROR_INVALID_ARGUMENT = 1, /* a null pointer, an index or count out of range */
  TTUNE_ERROR_IO = 2,               /* the weights file cannot be read */
  TTUNE_ERROR_CORRUPT = 3,          /* the weights file is damaged or belongs to another export */
  TTUNE_ERROR_UNSUPPORTED_CPU = 4,  /* this CPU lacks instructions the kernels were compiled for */
  TTUNE_ERROR_OUT_OF_MEMORY = 5
} ttune_status;

/* New codes are only ever added at the end: existing codes never change. */
typedef enum ttune_dtype {
  TTUNE_FLOAT32 = 0,
  TTUNE_INT32 = 1,
  TTUNE_INT64 = 2,
  TTUNE_BOOL = 3,
  TTUNE_INT8 = 4,
  TTUNE_UINT8 = 5,
  TTUNE_INT16 = 6,
  TTUNE_UINT16 = 7,
  TTUNE_UINT32 = 8,
  TTUNE_UINT64 = 9,
  TTUNE_FLOAT64 = 10,
  TTUNE_FLOAT16 = 11, /* IEEE binary16, as uint16_t bits */
  TTUNE_BFLOAT16 = 12 /* the upper half of a float32, as uint16_t bits */
} ttune_dtype;

typedef struct ttune_tensor_info {
  const char* name; /* the model's name of the input or output */
  int32_t dtype;    /* a ttune_dtype */
  int32_t ndim;
  const int64_t* shape; /* ndim sizes, row-major (C order) */
  int64_t elements;
  int64_t bytes; /* the size of the buffer ttune_model_run reads or writes */
} ttune_tensor_info;

typedef struct ttune_size_info {
  const char* name; /* the size parameter's name (the model's symbolic dimension) */
  int64_t min, max; /* its range, both ends included */
  int32_t input;    /* the input whose axis `axis` has this length */
  int32_t axis;
} ttune_size_info;

/* The ABI version the library implements (TTUNE_ABI_VERSION of the header it was built with). */
TTUNE_API int ttune_abi_version(void);

/* Loads the model. `path` is the export directory (its NAME.weights is read) or the weights file
 * itself. `threads` is the thread pool size; 0 means TTUNE_NUM_THREADS, else all cores.
 * Returns NULL on failure (see ttune_last_error). */
TTUNE_API ttune_model* ttune_model_create(const char* path, int threads);
/* Frees the model; NULL is ignored. */
TTUNE_API void ttune_model_destroy(ttune_model* model);

/* The exported model's name (--name), and the target its kernels were compiled for. */
TTUNE_API const char* ttune_model_name(const ttune_model* model);
TTUNE_API const char* ttune_model_target(const ttune_model* model);
/* What its convolutions and matrix products compute in: "fp32", or "bf16" (bfloat16 operands,
 * float32 sums; exported with --precision bf16). int8 models report "fp32": their integer
 * kernels come from the model file's quantization, whatever this says. */
TTUNE_API const char* ttune_model_precision(const ttune_model* model);
TTUNE_API int ttune_model_threads(const ttune_model* model);

/* Number of inputs and outputs, or -1 for a NULL model. */
TTUNE_API int ttune_model_num_inputs(const ttune_model* model);
TTUNE_API int ttune_model_num_outputs(const ttune_model* model);
/* Fills *info for input / output `index`. */
TTUNE_API int ttune_model_input_info(const ttune_model* model, int index, ttune_tensor_info* info);
TTUNE_API int ttune_model_output_info(const ttune_model* model, int index, ttune_tensor_info* info);

/* The number of size parameters (0 for a model of one size, -1 for a NULL model), and their
 * names and ranges. */
TTUNE_API int ttune_model_num_sizes(const ttune_model* model);
TTUNE_API int ttune_model_size_info(const ttune_model* model, int index, ttune_size_info* info);
/* Fills shape (the output's ndim sizes) with the shape of output `output` when the inputs have
 * the shapes input_shapes[i] (each of its input's ndim sizes). */
TTUNE_API int ttune_model_output_shape(const ttune_model* model, const int64_t* const* input_shapes, int output,
                                       int64_t* shape);

/* Runs the model on the caller's buffers: inputs[i] holds input i (dense, C order, its dtype),
 * outputs[i] receives output i. The arrays hold exactly num_inputs / num_outputs pointers, each
 * aligned to its element size; output buffers must not overlap each other or the inputs.
 * A model exported for ranges of sizes needs ttune_model_run_shaped. */
TTUNE_API int ttune_model_run(ttune_model* model, const void* const* inputs, void* const* outputs);
/* ttune_model_run that also checks the number of buffers the caller has. */
TTUNE_API int ttune_model_run_n(ttune_model* model, int num_inputs, const void* const* inputs, int num_outputs,
                                void* const* outputs);

/* Runs the model on inputs of the shapes input_shapes[i] (each of its input's ndim sizes; NULL
 * for a model of one size means its declared shapes); outputs[i] must hold output i at the shape
 * ttune_model_output_shape gives. */
TTUNE_API int ttune_model_run_shaped(ttune_model* model, int num_inputs, const void* const* inputs,
                                     const int64_t* const* input_shapes, int num_outputs, void* const* outputs);

/* A tensor the caller passes with its description, so that the library checks it: for an
 * input, its data, dtype, ndim, shape and the buffer's size in bytes; for an output, a buffer of
 * `bytes` bytes and a `shape` array of ndim entries that the run fills with the output's shape. */
typedef struct ttune_tensor {
  void* data;
  int32_t dtype; /* a ttune_dtype */
  int32_t ndim;
  int64_t* shape; /* ndim sizes (read for inputs, written for outputs) */
  int64_t bytes;  /* the size of the buffer at data */
} ttune_tensor;

/* ttune_model_run_shaped that checks everything it can: every input's dtype, rank and shape
 * (for a model of ranges of sizes, the sizes it gives) and that every buffer holds its tensor,
 * outputs included; fills each output's shape. A mismatch is TTUNE_ERROR_INVALID_ARGUMENT with
 * one sentence naming the tensor, and nothing is run. */
TTUNE_API int ttune_model_run_tensors(ttune_model* model, int num_inputs, const ttune_tensor* inputs, int num_outputs,
                                      ttune_tensor* outputs);

/* The last call of this thread: one sentence saying what went wrong, or "" when it succeeded;
 * and its ttune_status (for calls that return a pointer or a count). */
TTUNE_API const char* ttune_last_error(void);
TTUNE_API int ttune_last_status(void);

#ifdef __cplusplus
}
#endif

#endif /* TTUNE_TTUNE_MODEL_H */

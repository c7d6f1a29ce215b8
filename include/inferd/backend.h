/* SPDX-License-Identifier: Apache-2.0 */
/*
 * inferd backend ABI: the C interface between the inferd server and a backend
 * shared library (ONNX Runtime, LibTorch, Python, custom). A backend library
 * includes only this header; it never links against the server. The server
 * hands it a table of functions (INFERD_ServerApi) for everything it needs
 * from the server side: reading requests, writing responses, making errors.
 *
 * Versioning
 *   INFERD_BACKEND_API_VERSION_MAJOR changes on any incompatible change. The
 *   server refuses a backend whose major version differs from its own.
 *   INFERD_BACKEND_API_VERSION_MINOR grows when functions are appended to the
 *   end of INFERD_ServerApi or fields to the end of INFERD_ModelSpec; both
 *   start with `struct_size`, so an older backend keeps working with a newer
 *   server and a newer backend can test whether a field exists.
 *
 * Ownership
 *   Each side frees only what it allocated. Errors are created by the server
 *   (api->ErrorNew) and ownership passes with the returned pointer: an
 *   INFERD_Error* returned by a backend function is owned and freed by the
 *   server. NULL means success. Strings and arrays passed into a backend
 *   function are borrowed for the duration of that call unless stated.
 *
 * Threading
 *   INFERD_BackendModelCreate/Delete and InstanceCreate/Delete are called from
 *   the server's control plane, one at a time per model. For a given instance,
 *   INFERD_BackendInstanceExecute is called for one batch at a time from that
 *   instance's own thread; different instances run concurrently. All
 *   INFERD_ServerApi functions are thread-safe for distinct requests.
 *
 * Exceptions
 *   No C++ exception may leave a backend function: catch and return an error.
 */
#ifndef INFERD_BACKEND_H_
#define INFERD_BACKEND_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define INFERD_BACKEND_API_VERSION_MAJOR 1
#define INFERD_BACKEND_API_VERSION_MINOR 1

#if defined(__GNUC__)
#define INFERD_BACKEND_EXPORT __attribute__((visibility("default")))
#else
#define INFERD_BACKEND_EXPORT
#endif

/* Element types. Numbers match Triton's model_config DataType enum. */
typedef enum INFERD_DataType {
  INFERD_TYPE_INVALID = 0,
  INFERD_TYPE_BOOL = 1,
  INFERD_TYPE_UINT8 = 2,
  INFERD_TYPE_UINT16 = 3,
  INFERD_TYPE_UINT32 = 4,
  INFERD_TYPE_UINT64 = 5,
  INFERD_TYPE_INT8 = 6,
  INFERD_TYPE_INT16 = 7,
  INFERD_TYPE_INT32 = 8,
  INFERD_TYPE_INT64 = 9,
  INFERD_TYPE_FP16 = 10,
  INFERD_TYPE_FP32 = 11,
  INFERD_TYPE_FP64 = 12,
  /* Variable-length byte strings. In memory a BYTES tensor is, per element in
   * row-major order, a uint32 little-endian length followed by that many
   * bytes (the KServe v2 binary encoding). */
  INFERD_TYPE_BYTES = 13,
  INFERD_TYPE_BF16 = 14
} INFERD_DataType;

/* Error codes; each maps to one HTTP status and one gRPC status. */
typedef enum INFERD_ErrorCode {
  INFERD_ERROR_UNKNOWN = 0,
  INFERD_ERROR_INTERNAL = 1,
  INFERD_ERROR_NOT_FOUND = 2,
  INFERD_ERROR_INVALID_ARG = 3,
  INFERD_ERROR_UNAVAILABLE = 4,
  INFERD_ERROR_UNSUPPORTED = 5,
  INFERD_ERROR_ALREADY_EXISTS = 6,
  INFERD_ERROR_CANCELLED = 7
} INFERD_ErrorCode;

typedef struct INFERD_Error INFERD_Error;         /* server-owned error */
typedef struct INFERD_Request INFERD_Request;     /* one inference request */
typedef struct INFERD_Signature INFERD_Signature; /* collects a model file's I/O */

/* Backend-owned opaque objects. */
typedef struct INFERD_BackendModel INFERD_BackendModel;
typedef struct INFERD_BackendInstance INFERD_BackendInstance;

/* Frees backend memory that was handed to the server with a response output. */
typedef void (*INFERD_ReleaseFn)(void* release_context);

/* One configured tensor (ModelInput/ModelOutput after completion). `dims`
 * excludes the batch dimension when max_batch_size > 0; -1 is a variable
 * dimension. `reshape_dims` is non-NULL when the config has `reshape`: the
 * shape the backend must use with the model instead of `dims`. */
typedef struct INFERD_TensorSpec {
  const char* name;
  INFERD_DataType datatype;
  const int64_t* dims;
  size_t dims_count;
  const int64_t* reshape_dims; /* NULL when no reshape */
  size_t reshape_dims_count;
  int optional; /* inputs only: non-zero when the request may omit it */
} INFERD_TensorSpec;

typedef struct INFERD_Parameter {
  const char* key;
  const char* value;
} INFERD_Parameter;

/* What the server tells a backend about a model version. All pointers are
 * borrowed and stay valid until INFERD_BackendModelDelete returns. */
typedef struct INFERD_ModelSpec {
  size_t struct_size; /* sizeof(INFERD_ModelSpec) of the server */
  const char* name;
  int64_t version;
  const char* model_directory; /* the model folder */
  const char* model_path;      /* <model folder>/<version>/<default_model_filename> */
  int32_t max_batch_size;      /* 0: the model does not batch */
  const INFERD_TensorSpec* inputs;
  size_t input_count;
  const INFERD_TensorSpec* outputs;
  size_t output_count;
  const INFERD_Parameter* parameters; /* config `parameters`, string values */
  size_t parameter_count;
  int32_t graph_optimization_level; /* config optimization.graph.level */
  /* Threads the server suggests for one instance's intra-op pool when the
   * config sets none; chosen so all instances together fit the cores. */
  int32_t default_intra_op_threads;
  /* The whole ModelConfig as JSON, for backends that need more fields. */
  const char* config_json;
} INFERD_ModelSpec;

/* Functions the server offers to backends. */
typedef struct INFERD_ServerApi {
  size_t struct_size; /* sizeof(INFERD_ServerApi) of the server */
  uint32_t version_major;
  uint32_t version_minor;

  /* Errors. `message` is copied. */
  INFERD_Error* (*ErrorNew)(INFERD_ErrorCode code, const char* message);

  /* Signature: the backend reports what a model file declares. `dims` may
   * contain -1 for symbolic or unknown dimensions. Strings are copied. */
  void (*SignatureAddInput)(INFERD_Signature* signature, const char* name, INFERD_DataType datatype,
                            const int64_t* dims, size_t dims_count);
  void (*SignatureAddOutput)(INFERD_Signature* signature, const char* name,
                             INFERD_DataType datatype, const int64_t* dims, size_t dims_count);

  /* Request inputs. Every returned pointer stays valid until the request is
   * completed. Shapes include the batch dimension when the model batches.
   * `data` is the tensor's contiguous bytes (BYTES: length-prefixed). */
  size_t (*RequestInputCount)(const INFERD_Request* request);
  void (*RequestInput)(const INFERD_Request* request, size_t index, const char** name,
                       INFERD_DataType* datatype, const int64_t** shape, size_t* shape_count,
                       const void** data, size_t* byte_size);
  /* Outputs the client asked for; the server lists every model output when
   * the client named none. Only these must be produced. */
  size_t (*RequestOutputCount)(const INFERD_Request* request);
  const char* (*RequestOutputName)(const INFERD_Request* request, size_t index);

  /* Hands one output to the response. Ownership of `data` moves to the
   * server, which calls release(release_context) once the response has been
   * sent (possibly on another thread, possibly before this call returns on
   * error). `shape` is copied. Several outputs may share one allocation when
   * the backend reference-counts it in `release_context`. Returns an error
   * when the output is unknown, not requested, or the size does not match
   * the shape and datatype. */
  INFERD_Error* (*ResponseAddOutput)(INFERD_Request* request, const char* name,
                                     INFERD_DataType datatype, const int64_t* shape,
                                     size_t shape_count, const void* data, size_t byte_size,
                                     INFERD_ReleaseFn release, void* release_context);

  /* Sends the response (error == NULL) or the error (ownership of `error`
   * passes to the server). Called exactly once per request; after it the
   * request must not be touched. */
  void (*RequestComplete)(INFERD_Request* request, INFERD_Error* error);

  /* ---- Since minor version 1 (check struct_size before use). ---- */

  /* The server's monotonic clock, in nanoseconds. Timestamps passed to
   * RequestReportComputeTimes must come from it. */
  uint64_t (*NowNanoseconds)(void);
  /* Optional, for statistics: when the backend began computing this request
   * (its inputs gathered) and when it finished (before writing outputs).
   * Call before RequestComplete. A backend that never calls it has its whole
   * execution counted as compute_infer. */
  void (*RequestReportComputeTimes)(INFERD_Request* request, uint64_t compute_start_ns,
                                    uint64_t compute_end_ns);
} INFERD_ServerApi;

/* ---- Functions a backend library exports (looked up with dlsym). ---- */

/* Returns INFERD_BACKEND_API_VERSION_MAJOR << 16 | MINOR of the header the
 * backend was built against. Required. */
INFERD_BACKEND_EXPORT uint32_t INFERD_BackendApiVersion(void);

/* Reads the model file named by spec->model_path and reports its inputs and
 * outputs through api->SignatureAdd*. Only name, version, model_directory,
 * model_path and parameters of `spec` are meaningful here. Used to complete
 * a missing or partial config. Optional: a backend without it requires a
 * complete config. */
INFERD_BACKEND_EXPORT INFERD_Error* INFERD_BackendDescribeModel(const INFERD_ServerApi* api,
                                                                const INFERD_ModelSpec* spec,
                                                                INFERD_Signature* signature);

/* Loads a model version. On success *model is a backend object that the
 * server later passes to INFERD_BackendModelDelete. `api` outlives it. */
INFERD_BACKEND_EXPORT INFERD_Error* INFERD_BackendModelCreate(const INFERD_ServerApi* api,
                                                              const INFERD_ModelSpec* spec,
                                                              INFERD_BackendModel** model);
INFERD_BACKEND_EXPORT void INFERD_BackendModelDelete(INFERD_BackendModel* model);

/* Creates instance `index` (0-based) of a loaded model. All instances are
 * deleted before their model. */
INFERD_BACKEND_EXPORT INFERD_Error* INFERD_BackendInstanceCreate(INFERD_BackendModel* model,
                                                                 uint32_t index,
                                                                 INFERD_BackendInstance** instance);
INFERD_BACKEND_EXPORT void INFERD_BackendInstanceDelete(INFERD_BackendInstance* instance);

/* Runs a batch of `request_count` requests. The backend must call
 * api->RequestComplete exactly once for every request, including on failure
 * (it may complete them in any order, before or after returning). The
 * requests of one batch agree on every non-batch dimension; their batch
 * sizes add up to at most max_batch_size. */
INFERD_BACKEND_EXPORT void INFERD_BackendInstanceExecute(INFERD_BackendInstance* instance,
                                                         INFERD_Request** requests,
                                                         size_t request_count);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* INFERD_BACKEND_H_ */

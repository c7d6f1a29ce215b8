/* SPDX-License-Identifier: Apache-2.0 */
/*
 * inferd backend ABI: the C interface between the inferd server and a backend
 * shared library (ONNX Runtime, LibTorch, Python, or your own). A backend
 * includes only this header (which includes inferd/types.h, the enums it
 * shares with the embedding API); it never links against the server. The
 * server hands it a table of functions (INFERD_ServerApi) for everything it
 * needs from the server side: reading requests, writing responses, making
 * errors.
 * docs/backends.md shows how to write, build and install a backend.
 *
 * ---------------------------------------------------------------------------
 * Loading
 *   A model whose config says `backend: "<name>"` is served by
 *     <backend directory>/<name>/libinferd_<name>.so
 *   (--backend-directory; by default ../lib/backends beside the inferd
 *   binary). The server dlopen()s it once, with RTLD_NOW | RTLD_LOCAL |
 *   RTLD_NODELETE, on the first model that needs it, and keeps it mapped
 *   until the process exits: code and static data of a backend outlive every
 *   model. The library exports the INFERD_Backend* functions declared at the
 *   end of this file with C linkage and default visibility
 *   (INFERD_BACKEND_EXPORT); everything else should stay hidden.
 *
 * ---------------------------------------------------------------------------
 * Versioning and compatibility
 *   The ABI version is MAJOR.MINOR (INFERD_BACKEND_API_VERSION_*), separate
 *   from inferd's release version.
 *   - MAJOR changes on any incompatible change: a type, a value, a signature,
 *     a struct layout or a documented behaviour a backend relies on. When the
 *     backend loads, the server calls INFERD_BackendApiVersion() and refuses
 *     the library (every model that names it is UNAVAILABLE, with both
 *     versions in the reason) unless its major equals the server's.
 *   - MINOR grows when something is added compatibly: a function appended to
 *     the end of INFERD_ServerApi, a field appended to the end of
 *     INFERD_ModelSpec, a new optional backend export, a new enum value. The
 *     server accepts a backend of any minor of its major, older or newer.
 *   - So a backend built against minor N that uses something added in minor
 *     N must check at run time that the server has it: INFERD_ServerApi and
 *     INFERD_ModelSpec start with `struct_size` (sizeof of the server's
 *     struct), and a member exists when
 *       struct_size >= offsetof(T, member) + sizeof(member)
 *     (or compare api->version_minor). Members of minor 0 are always there.
 *   - Enums may gain values in a minor version: treat an unknown
 *     INFERD_DataType as unsupported and an unknown INFERD_ErrorCode as
 *     INFERD_ERROR_UNKNOWN.
 *   History: 1.0 the first release. 1.1 added INFERD_ServerApi::NowNanoseconds
 *   and INFERD_ServerApi::RequestReportComputeTimes. 1.2 added
 *   INFERD_ServerApi::SignatureSetMaxBatchSize. 1.3 added calls to other
 *   models (INFERD_ModelSpec::server, INFERD_ServerApi::InferRequest*,
 *   ServerInferAsync, InferResponse*) and ErrorCode/ErrorMessage/ErrorDelete.
 *   1.4 added decoupled models (INFERD_ModelSpec::decoupled,
 *   INFERD_ServerApi::RequestSendResponse, ServerInferAsyncDecoupled), the
 *   request's sequence correlation id and parameters
 *   (RequestCorrelationId, RequestParametersJson), and RequestIsCancelled.
 *
 * ---------------------------------------------------------------------------
 * Ownership and lifetimes
 *   Each side frees only what it allocated, except where ownership is said
 *   to move:
 *   - `const INFERD_ServerApi* api` is static server data, valid for the
 *     life of the process; a backend may keep it (and usually does, in its
 *     model object).
 *   - INFERD_ModelSpec and everything it points to are borrowed: during
 *     INFERD_BackendDescribeModel only for the call; for
 *     INFERD_BackendModelCreate until INFERD_BackendModelDelete of that
 *     model returns. Copy what you need to keep longer.
 *   - INFERD_BackendModel / INFERD_BackendInstance are the backend's own
 *     objects (define the structs in the backend). The server holds the
 *     pointers it was given and passes each back to the matching Delete
 *     function exactly once.
 *   - INFERD_Request*: the server lends each request to the backend in
 *     INFERD_BackendInstanceExecute; the backend gives it back with
 *     api->RequestComplete, exactly once, after which the pointer is
 *     invalid. Everything the server returns about a request (input names,
 *     shapes, data, output names) stays valid until that RequestComplete.
 *     Input data is read-only.
 *   - Output data handed to api->ResponseAddOutput belongs to the server from
 *     that call on; it calls the backend's release function exactly once
 *     when done (see ResponseAddOutput).
 *   - INFERD_Signature*: borrowed for one INFERD_BackendDescribeModel call.
 *   - Strings the backend passes to the server (error messages, tensor
 *     names) are copied; they only need to live for the call.
 *
 * ---------------------------------------------------------------------------
 * Errors
 *   A function that can fail returns INFERD_Error*: NULL means success. An
 *   error is made only by api->ErrorNew(code, message), which copies the
 *   message. Whoever holds an INFERD_Error* owns it. The backend passes every
 *   error it creates or receives to the server exactly once, by returning it
 *   from an INFERD_Backend* function or by giving it to api->RequestComplete,
 *   or (since minor 3) frees it with api->ErrorDelete. Servers older than
 *   minor 3 have no ErrorDelete: a backend that runs on them creates an error
 *   only when it is about to hand it over. An error returned by
 *   api->ResponseAddOutput is owned by the backend, which usually passes it
 *   on with RequestComplete.
 *   The code decides the protocol status the client sees: INVALID_ARG is
 *   HTTP 400 / gRPC INVALID_ARGUMENT, NOT_FOUND 404 / NOT_FOUND, UNAVAILABLE
 *   503 / UNAVAILABLE, UNSUPPORTED 501 / UNIMPLEMENTED, INTERNAL 500 /
 *   INTERNAL. Use INVALID_ARG for bad request data (an undecodable input),
 *   INTERNAL for a backend fault, UNAVAILABLE for a model that cannot load.
 *   An error from ModelCreate/InstanceCreate makes that model version
 *   UNAVAILABLE with the message as the reason; an error passed to
 *   RequestComplete fails that one request only. The server keeps serving in
 *   both cases.
 *
 * ---------------------------------------------------------------------------
 * Threading
 *   - INFERD_BackendInstanceExecute is called for one batch at a time per
 *     instance: never concurrently with itself on the same instance, nor
 *     with that instance's Create or Delete. It runs on one of the server's
 *     threads, normally a thread dedicated to the instance (warm-up requests
 *     run earlier, on the thread that loads the model); do not rely on the
 *     thread's identity. Different instances, of the same or other models,
 *     execute concurrently: state shared by instances of a model (the
 *     INFERD_BackendModel) must be read-only or synchronized by the backend.
 *   - Instances of one model version are created one after the other, after
 *     INFERD_BackendModelCreate returned, and all are deleted before
 *     INFERD_BackendModelDelete. A model version is deleted only after every
 *     request handed to it was completed (but not necessarily after the
 *     calls it made to other models: see "Calling other models" at
 *     INFERD_ServerApi::InferRequestNew).
 *   - Different models, and different versions of one model, are loaded and
 *     unloaded independently: INFERD_BackendDescribeModel, ModelCreate and
 *     ModelDelete may run concurrently with each other (for different
 *     models) and with Execute on other models' instances. Global state of
 *     a backend library must therefore be thread-safe.
 *   - Every INFERD_ServerApi function may be called from any thread,
 *     concurrently, as long as calls concern distinct requests. Calls about
 *     one request must not overlap each other. A backend may complete a
 *     request from another thread, after Execute has returned.
 *   - The release function of an output may be called on any server thread,
 *     possibly after the instance and the model were deleted: it must
 *     depend on nothing but its release_context.
 *   - Execute should return promptly enough to keep its instance serving: a
 *     backend that blocks in Execute blocks only that instance.
 *
 * ---------------------------------------------------------------------------
 * Exceptions and crashes
 *   No C++ exception may leave a backend function: catch everything and
 *   return (or complete the request with) an error. A backend runs inside
 *   the server process, so a crash in it ends the server; isolate untrusted
 *   code in a separate process (as the Python backend does).
 */
#ifndef INFERD_BACKEND_H_
#define INFERD_BACKEND_H_

#include <stddef.h>
#include <stdint.h>

#include "inferd/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI version of this header (see "Versioning" above). */
#define INFERD_BACKEND_API_VERSION_MAJOR 1
#define INFERD_BACKEND_API_VERSION_MINOR 5

/* Marks the functions a backend exports. Build with -fvisibility=hidden (or
 * a version script) so that nothing else leaks out of the library. */
#if defined(__GNUC__)
#define INFERD_BACKEND_EXPORT __attribute__((visibility("default")))
#else
#define INFERD_BACKEND_EXPORT
#endif

/* INFERD_DataType (element types) and INFERD_ErrorCode (error codes, each
 * mapping to one HTTP and one gRPC status; see "Errors" above) are in
 * inferd/types.h, shared with the embedding API (inferd/inferd.h). */

/* Server-owned opaque objects: a backend only holds pointers to them. */
typedef struct INFERD_Error INFERD_Error;         /* an error; see "Errors" above */
typedef struct INFERD_Request INFERD_Request;     /* one inference request */
typedef struct INFERD_Signature INFERD_Signature; /* collects a model file's I/O */
/* Since minor 3: calls from a backend to other models (see "Calling other
 * models" at INFERD_ServerApi::InferRequestNew). */
typedef struct INFERD_Server INFERD_Server;               /* the server a model runs in */
typedef struct INFERD_InferRequest INFERD_InferRequest;   /* a request to another model */
typedef struct INFERD_InferResponse INFERD_InferResponse; /* its response */

/* Backend-owned opaque objects: the backend defines these structs. */
typedef struct INFERD_BackendModel INFERD_BackendModel;
typedef struct INFERD_BackendInstance INFERD_BackendInstance;

/* Frees backend memory that was handed to the server with a response output.
 * Called exactly once per ResponseAddOutput call, on any thread. */
typedef void (*INFERD_ReleaseFn)(void* release_context);

/* One configured tensor (ModelInput/ModelOutput after completion). `dims`
 * excludes the batch dimension when max_batch_size > 0; -1 is a variable
 * dimension. `reshape_dims` is non-NULL when the config has `reshape`: the
 * shape the backend must use with the model instead of `dims`. All pointers
 * are borrowed like the INFERD_ModelSpec that holds the tensor. */
typedef struct INFERD_TensorSpec {
  const char* name;
  INFERD_DataType datatype;
  const int64_t* dims;
  size_t dims_count;
  const int64_t* reshape_dims; /* NULL when no reshape */
  size_t reshape_dims_count;
  int optional; /* inputs only: non-zero when the request may omit it */
} INFERD_TensorSpec;

/* One entry of the config's `parameters` map (its string_value). */
typedef struct INFERD_Parameter {
  const char* key;
  const char* value;
} INFERD_Parameter;

/* What the server tells a backend about a model version: the config after
 * completion and validation. All pointers are borrowed: valid during
 * INFERD_BackendDescribeModel, and from INFERD_BackendModelCreate until
 * INFERD_BackendModelDelete of that model returns. Strings are
 * NUL-terminated UTF-8. Fields may be appended in a minor version: check
 * `struct_size` before reading one newer than minor 0. */
typedef struct INFERD_ModelSpec {
  size_t struct_size; /* sizeof(INFERD_ModelSpec) of the server */
  const char* name;
  int64_t version;
  const char* model_directory; /* the model folder */
  /* <model folder>/<version>/<default_model_filename>; the file need not
   * exist (a backend without model files ignores it). The default file name
   * of a custom backend <name> is model.<name>. */
  const char* model_path;
  int32_t max_batch_size; /* 0: the model does not batch */
  /* The config's inputs and outputs. For a sequence model the server adds
   * tensors after them: each sequence_batching control_input (dims [1]) and
   * state input_name, and each state output_name the config does not list as
   * an output. Every request carries those inputs and asks for those
   * outputs (docs/backends.md, "Sequence models"). */
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
  /* The whole ModelConfig as JSON, for backends that need more fields: as
   * Triton prints it and GET /v2/models/<m>/config returns it (protobuf field
   * names, every primitive field even at its default, enums by name, int64 as
   * JSON numbers). */
  const char* config_json;
  /* ---- Since minor version 3 (check struct_size before reading). ---- */
  /* The server this model runs in, for api->InferRequestNew: requests from
   * this model to other models (Triton's "business logic scripting"). Valid
   * until INFERD_BackendModelDelete returns; NULL during
   * INFERD_BackendDescribeModel. */
  INFERD_Server* server;
  /* ---- Since minor version 4 (check struct_size before reading). ---- */
  /* Non-zero for model_transaction_policy { decoupled: true }: the backend
   * answers each request with any number of responses through
   * api->RequestSendResponse (see there). */
  int32_t decoupled;
  /* ---- Since minor version 5 (check struct_size before reading). ---- */
  /* The server's settings for this model's backend: each
   * `--backend-config=<backend>,<key>=<value>` naming it, in command-line
   * order (Triton's backend configuration). The same for every model of the
   * backend; the model's own `parameters` are above. */
  const INFERD_Parameter* backend_config;
  size_t backend_config_count;
} INFERD_ModelSpec;

/* Flags of a response (RequestSendResponse, INFERD_InferResponseFn): the
 * last response of a request carries INFERD_RESPONSE_FLAG_FINAL (Triton's
 * TRITONSERVER_RESPONSE_COMPLETE_FINAL). Since minor 4. */
#define INFERD_RESPONSE_FLAG_FINAL 1u

/* Called exactly once per api->ServerInferAsync, with the response (error ==
 * NULL) or the error (response == NULL). Both are owned by the backend from
 * then on: free the response with api->InferResponseDelete and the error
 * with api->ErrorDelete (or hand the error on, e.g. to RequestComplete).
 * Runs on any server thread, possibly on the caller's before ServerInferAsync
 * returns (so do not call ServerInferAsync holding a lock the function
 * takes): keep it short and never block in it. It may complete the parent
 * request (api->RequestComplete) and send further requests. */
typedef void (*INFERD_InferCompleteFn)(void* context, INFERD_InferResponse* response,
                                       INFERD_Error* error);

/* Since minor 4: called once per response of api->ServerInferAsyncDecoupled,
 * in the order the target sent them, never concurrently for one request.
 * Exactly one call carries INFERD_RESPONSE_FLAG_FINAL in `flags`, and it is
 * the last; on it `response` may be NULL with `error` NULL (the target sent
 * the final flag alone). Otherwise one of `response` and `error` is set; an
 * error without the final flag does not end the request. Ownership as for
 * INFERD_InferCompleteFn; the same threading rules apply. */
typedef void (*INFERD_InferResponseFn)(void* context, INFERD_InferResponse* response,
                                       INFERD_Error* error, uint32_t flags);

/* Functions the server offers to backends: a static table, valid for the
 * life of the process. Members are only ever appended (minor versions):
 * check `struct_size` before calling one newer than minor 0. Unless stated,
 * every function may be called from any thread, concurrently for distinct
 * requests (see "Threading" above). */
typedef struct INFERD_ServerApi {
  size_t struct_size; /* sizeof(INFERD_ServerApi) of the server */
  uint32_t version_major;
  uint32_t version_minor;

  /* Errors. Returns a new error that the caller owns until it hands it to
   * the server (return value or RequestComplete); `message` is copied and
   * may be NULL. Never returns NULL. */
  INFERD_Error* (*ErrorNew)(INFERD_ErrorCode code, const char* message);

  /* Signature: the backend reports what a model file declares, only during
   * INFERD_BackendDescribeModel. `dims` are the file's full shape, a leading
   * batch dimension included; -1 marks a symbolic or unknown dimension (a
   * leading -1 on every tensor lets the server turn batching on). Strings
   * and dims are copied. */
  void (*SignatureAddInput)(INFERD_Signature* signature, const char* name, INFERD_DataType datatype,
                            const int64_t* dims, size_t dims_count);
  void (*SignatureAddOutput)(INFERD_Signature* signature, const char* name,
                             INFERD_DataType datatype, const int64_t* dims, size_t dims_count);

  /* Request inputs. Every returned pointer is owned by the server and stays
   * valid until the request is completed. Shapes include the batch dimension
   * when the model batches. `data` is the tensor's contiguous bytes (BYTES:
   * length-prefixed), read-only. The server has already checked the inputs
   * against the config (names, datatypes, shapes, byte sizes); `index` must
   * be below RequestInputCount. */
  size_t (*RequestInputCount)(const INFERD_Request* request);
  void (*RequestInput)(const INFERD_Request* request, size_t index, const char** name,
                       INFERD_DataType* datatype, const int64_t** shape, size_t* shape_count,
                       const void** data, size_t* byte_size);
  /* Outputs the client asked for; the server lists every model output when
   * the client named none. Only these must be produced. The returned string
   * is owned by the server and valid until the request is completed. */
  size_t (*RequestOutputCount)(const INFERD_Request* request);
  const char* (*RequestOutputName)(const INFERD_Request* request, size_t index);

  /* Hands one output to the response. Ownership of `data` moves to the
   * server, which calls release(release_context) once the response has been
   * sent (possibly on another thread, possibly after the model was deleted,
   * possibly before this call returns on error); `release` may be NULL for
   * memory the backend keeps alive itself for the life of the process.
   * `shape` (batch dimension included when the model batches) is copied.
   * Several outputs may share one allocation when the backend
   * reference-counts it in `release_context`. Returns NULL, or an error the
   * backend now owns when the output is unknown, not requested, or the size
   * does not match the shape and datatype. Call before RequestComplete. */
  INFERD_Error* (*ResponseAddOutput)(INFERD_Request* request, const char* name,
                                     INFERD_DataType datatype, const int64_t* shape,
                                     size_t shape_count, const void* data, size_t byte_size,
                                     INFERD_ReleaseFn release, void* release_context);

  /* Sends the response (error == NULL) or the error (ownership of `error`
   * passes to the server; outputs already added are then dropped). Called
   * exactly once per request, from any thread, also after Execute returned;
   * after it the request must not be touched. */
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

  /* ---- Since minor version 2 (check struct_size before use). ---- */

  /* Signature, only during INFERD_BackendDescribeModel: the largest batch
   * the model takes (0: it does not batch), when the backend knows it (a
   * Python model's auto_complete_config says so). It replaces the server's
   * guess from leading -1 dimensions; dims of a batching model still
   * include the leading batch dimension. A max_batch_size already set in
   * the config wins. */
  void (*SignatureSetMaxBatchSize)(INFERD_Signature* signature, int32_t max_batch_size);

  /* ---- Since minor version 3 (check struct_size before use). ---- */

  /* Errors a backend holds (from INFERD_InferCompleteFn, ResponseAddOutput,
   * InferRequestAddInput or its own ErrorNew): read them, and free one that
   * is not handed on to the server. A server status that has no
   * INFERD_ErrorCode of its own reads as INTERNAL, while an error handed on
   * keeps the server's exact status for the client. The message is never
   * NULL and stays valid, unchanged, while the error lives.
   * ErrorDelete(NULL) does nothing. */
  INFERD_ErrorCode (*ErrorCode)(const INFERD_Error* error);
  const char* (*ErrorMessage)(const INFERD_Error* error);
  void (*ErrorDelete)(INFERD_Error* error);

  /* Calling other models. A backend builds a request for model
   * `model_name` (`model_version` > 0 a fixed version, -1 or 0 the newest
   * ready one) on `server` (INFERD_ModelSpec::server), adds inputs, and
   * sends it with ServerInferAsync. Never returns NULL; a NULL `server`
   * makes a request that fails when sent (INVALID_ARG). The request takes
   * exactly the server's public path: it is resolved, validated against the
   * target's config, queued in the target's own scheduler (so it batches
   * with client requests), and counted in the target's statistics. Errors
   * (unknown model, bad inputs, a timeout) reach the completion function;
   * they never end the caller. Calls about one INFERD_InferRequest must not
   * overlap; distinct requests may be built concurrently.
   * The usual pattern: in Execute, for a request being executed, build a
   * child request with InferRequestSetParent, send it, return from Execute
   * without waiting, and complete the parent from the completion function.
   * - Do not wait in Execute for a request to a model that can only run
   *   after this Execute returns (the same instance, or a chain back to
   *   it): with one instance that waits forever.
   * - The server keeps the calling model loaded only while requests handed
   *   to it are not completed: a completion function that runs after the
   *   parent was completed (a backend that stopped waiting, or a call made
   *   on behalf of no request) may run after INFERD_BackendModelDelete.
   *   Such a backend waits for its outstanding calls in InstanceDelete or
   *   ModelDelete, or gives the completion a context that owns everything
   *   it touches.
   * - During a shutdown the server keeps its models loaded, and takes these
   *   requests, while it drains client requests; once the drain time is
   *   over, a request still queued fails with UNAVAILABLE, and a request
   *   to a model already unloaded fails with UNAVAILABLE (never a crash). */
  INFERD_InferRequest* (*InferRequestNew)(INFERD_Server* server, const char* model_name,
                                          int64_t model_version);
  /* Adds an input. `data` is not copied: it must stay valid and unchanged
   * until release(release_context) is called: exactly once, on any thread,
   * once nothing in the server refers to it any more; that may be before
   * this call returns (on error), before the request is sent (on
   * InferRequestDelete), and before or after the completion function runs,
   * so the release must not depend on state the completion frees. `release`
   * may be NULL for memory the backend keeps valid until the completion
   * function has run and the response was deleted (InferResponseDelete).
   * `shape` includes the batch dimension when the target batches; BYTES
   * data is length-prefixed. Returns NULL or an error that the backend owns
   * (an unknown datatype, a size that does not match the shape); names and
   * shapes are checked against the target's config when the request is
   * sent. */
  INFERD_Error* (*InferRequestAddInput)(INFERD_InferRequest* request, const char* name,
                                        INFERD_DataType datatype, const int64_t* shape,
                                        size_t shape_count, const void* data, size_t byte_size,
                                        INFERD_ReleaseFn release, void* release_context);
  /* Names an output to return; none named: every output of the target. */
  void (*InferRequestAddRequestedOutput)(INFERD_InferRequest* request, const char* name);
  /* Makes the request part of `parent` (a request this backend is
   * executing and has not completed): it inherits the parent's
   * cancellation (a client that goes away cancels it too) and deadline.
   * Optional; `parent` must outlive the call only (it counts as a call
   * about `parent` too). */
  void (*InferRequestSetParent)(INFERD_InferRequest* request, const INFERD_Request* parent);
  /* A deadline `timeout_us` microseconds after ServerInferAsync (0: none of
   * its own; the parent's, if any, still applies): a request still waiting
   * in a queue (of the target or, for an ensemble, of any of its steps)
   * then fails with INFERD_ERROR_DEADLINE_EXCEEDED. A step already
   * executing runs to its end; a caller that must not wait longer stops
   * waiting itself (the Python backend does). A timeout too large for the
   * clock counts as none. */
  void (*InferRequestSetTimeout)(INFERD_InferRequest* request, uint64_t timeout_us);
  /* Request parameters, as a client sends them (e.g. "sequence_id",
   * "priority", "timeout" for the target's queue policy). The key and string
   * value are copied; setting a key again replaces its value. They are
   * checked when the request is sent ("triton_" keys are refused). */
  void (*InferRequestSetIntParameter)(INFERD_InferRequest* request, const char* key, int64_t value);
  void (*InferRequestSetStringParameter)(INFERD_InferRequest* request, const char* key,
                                         const char* value);
  void (*InferRequestSetBoolParameter)(INFERD_InferRequest* request, const char* key, int value);
  /* Frees a request that was never sent (its inputs are released);
   * NULL does nothing. */
  void (*InferRequestDelete)(INFERD_InferRequest* request);
  /* Sends `request` (ownership passes to the server, always, also on
   * error). `complete(context, ...)` is called exactly once, also when
   * `request` is NULL (INVALID_ARG); a NULL `complete` drops the result. */
  void (*ServerInferAsync)(INFERD_InferRequest* request, INFERD_InferCompleteFn complete,
                           void* context);
  /* A response's outputs, in the order requested (or the target's config
   * order). Every pointer stays valid until InferResponseDelete. */
  size_t (*InferResponseOutputCount)(const INFERD_InferResponse* response);
  void (*InferResponseOutput)(const INFERD_InferResponse* response, size_t index, const char** name,
                              INFERD_DataType* datatype, const int64_t** shape, size_t* shape_count,
                              const void** data, size_t* byte_size);
  /* Frees a response. Its output bytes may live on while the server holds
   * them elsewhere; the backend's pointers are invalid after this call. */
  void (*InferResponseDelete)(INFERD_InferResponse* response);

  /* ---- Since minor version 4 (check struct_size before use). ---- */

  /* Decoupled models (INFERD_ModelSpec::decoupled): sends the outputs added
   * with ResponseAddOutput since the previous send as one response, or
   * `error` instead (ownership passes to the server; NULL for a response).
   * Each response may carry any subset of the requested outputs, also none.
   * With INFERD_RESPONSE_FLAG_FINAL in `flags` it is the request's last
   * response: the client is answered, and the backend must still hand the
   * request back with RequestComplete(request, NULL), which then only
   * releases it. Without a final send, RequestComplete sends the outputs
   * added since the last send as the final response, or the final flag
   * alone when there are none (or `error` as the final answer). A backend
   * may send from any thread, also after Execute returned, until
   * RequestComplete; calls about one request must not overlap. Returns NULL,
   * or an error the backend owns: the model is not decoupled, or the final
   * response was already sent. */
  INFERD_Error* (*RequestSendResponse)(INFERD_Request* request, INFERD_Error* error,
                                       uint32_t flags);
  /* The request's sequence correlation id (the `sequence_id` parameter):
   * *id the numeric id, or 0; *string_id the string id, or NULL. Both are 0
   * / NULL for a request outside any sequence. The string is owned by the
   * server and valid until the request is completed. */
  void (*RequestCorrelationId)(const INFERD_Request* request, uint64_t* id, const char** string_id);
  /* The request's parameters as a JSON object (as the client sent them;
   * "{}" when none), owned by the server, valid until the request is
   * completed. What Triton's Python backend returns from
   * request.parameters(). */
  const char* (*RequestParametersJson)(const INFERD_Request* request);
  /* Like ServerInferAsync, for a target that may send many responses (a
   * decoupled model): `on_response` is called once per response, the last
   * time with INFERD_RESPONSE_FLAG_FINAL. An ordinary target gives one call
   * with its response and the flag. ServerInferAsync on a decoupled target
   * fails with UNSUPPORTED. */
  void (*ServerInferAsyncDecoupled)(INFERD_InferRequest* request,
                                    INFERD_InferResponseFn on_response, void* context);
  /* Non-zero once the request's client has given up (a closed connection, a
   * cancelled gRPC call or stream): a backend that answers over a long time
   * (a decoupled model streaming responses) checks it between responses,
   * stops early and completes the request, with INFERD_ERROR_CANCELLED or
   * what it has. A backend that never asks simply finishes its work (the
   * responses then go nowhere). Cheap; may be called from any thread, like
   * every call about the request (Triton's TRITONBACKEND_RequestIsCancelled). */
  int32_t (*RequestIsCancelled)(const INFERD_Request* request);
} INFERD_ServerApi;

/* ---- Functions a backend library exports (looked up with dlsym). ----
 * Required: INFERD_BackendApiVersion, ModelCreate, ModelDelete,
 * InstanceCreate, InstanceDelete, InstanceExecute; a library missing one is
 * refused. Optional: INFERD_BackendDescribeModel. */

/* Returns INFERD_BACKEND_API_VERSION_MAJOR << 16 | MINOR of the header the
 * backend was built against. Required; called once, right after dlopen. */
INFERD_BACKEND_EXPORT uint32_t INFERD_BackendApiVersion(void);

/* Reads the model file named by spec->model_path and reports its inputs and
 * outputs through api->SignatureAdd*. Only name, version, model_directory,
 * model_path and parameters of `spec` are meaningful here. Used to complete
 * a missing or partial config. Optional: a backend without it requires a
 * complete config. Returns NULL or an error (the model is then
 * UNAVAILABLE). `signature` is borrowed for the call. */
INFERD_BACKEND_EXPORT INFERD_Error* INFERD_BackendDescribeModel(const INFERD_ServerApi* api,
                                                                const INFERD_ModelSpec* spec,
                                                                INFERD_Signature* signature);

/* Loads a model version. On success returns NULL and sets *model to a
 * backend object that the server later passes to INFERD_BackendModelDelete
 * (exactly once); on failure returns an error and *model is ignored (free
 * anything allocated). `api` outlives the model; `spec` is valid until
 * ModelDelete returns. */
INFERD_BACKEND_EXPORT INFERD_Error* INFERD_BackendModelCreate(const INFERD_ServerApi* api,
                                                              const INFERD_ModelSpec* spec,
                                                              INFERD_BackendModel** model);
/* Frees a model. Its instances are already deleted and all its requests
 * completed. Cannot fail. */
INFERD_BACKEND_EXPORT void INFERD_BackendModelDelete(INFERD_BackendModel* model);

/* Creates instance `index` (0-based, one per instance of the config's
 * instance_group, counted across groups) of a loaded model. On success
 * returns NULL and sets *instance; on failure returns an error (the model
 * version is then UNAVAILABLE and the instances created so far are
 * deleted). All instances are deleted before their model. */
INFERD_BACKEND_EXPORT INFERD_Error* INFERD_BackendInstanceCreate(INFERD_BackendModel* model,
                                                                 uint32_t index,
                                                                 INFERD_BackendInstance** instance);
/* Frees an instance. No Execute on it is running and every request given to
 * it has been completed. Cannot fail. */
INFERD_BACKEND_EXPORT void INFERD_BackendInstanceDelete(INFERD_BackendInstance* instance);

/* Runs a batch of `request_count` (>= 1) requests. `requests` (the array) is
 * borrowed for the call; each INFERD_Request* is lent until its
 * RequestComplete. The backend must call api->RequestComplete exactly once
 * for every request, including on failure (it may complete them in any
 * order, before or after returning). The requests of one batch agree on
 * every non-batch dimension; their batch sizes add up to at most
 * max_batch_size. A failure of one request should fail only that request.
 * Never called concurrently on the same instance (see "Threading"). */
INFERD_BACKEND_EXPORT void INFERD_BackendInstanceExecute(INFERD_BackendInstance* instance,
                                                         INFERD_Request** requests,
                                                         size_t request_count);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* INFERD_BACKEND_H_ */

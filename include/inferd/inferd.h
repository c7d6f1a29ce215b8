/* SPDX-License-Identifier: Apache-2.0 */
/*
 * inferd embedding API: the C interface of libinferd.so, which runs an inferd
 * server inside your own process. Everything a client can do over HTTP or
 * gRPC is here without a network: readiness, the repository index, loading
 * and unloading models, metadata and configuration, inference (with inputs
 * read from your memory and outputs read from the server's, no copy), and
 * statistics. docs/embedding.md walks through it; examples/embed/simple.c is
 * a complete program.
 *
 * ---------------------------------------------------------------------------
 * Building
 *   Include <inferd/inferd.h> and link libinferd.so: `pkg-config --cflags
 *   --libs inferd`, or in CMake find_package(inferd) and link
 *   inferd::inferd. C11 or C++11 is enough. The library exports only the
 *   INFERD_* functions of this header; it brings its own dependencies as
 *   shared libraries (Abseil, protobuf, spdlog) and loads backends from a
 *   folder at run time (INFERD_ServerOptionsSetBackendDirectory).
 *   This header and inferd/backend.h (for backends) may be included
 *   together: the types they share are declared identically in both.
 *
 * ---------------------------------------------------------------------------
 * Versioning and compatibility
 *   The API version is MAJOR.MINOR (INFERD_API_VERSION_*), separate from
 *   inferd's release version and from the backend ABI's.
 *   - MAJOR changes on any incompatible change: a removed or changed
 *     function, type or value, or a documented behaviour a caller relies on.
 *     The library's SONAME carries it (libinferd.so.<MAJOR>), so a program
 *     never runs against a library of another major.
 *   - MINOR grows when something is added compatibly: a new function, a new
 *     enum value, a new option. A program built against minor N runs on a
 *     library of the same major and minor >= N; call INFERD_ApiVersion to
 *     check at run time before using something newer than minor 0.
 *   - Enums may gain values in a minor version: treat an unknown
 *     INFERD_DataType as unsupported and an unknown INFERD_ErrorCode as
 *     INFERD_ERROR_UNKNOWN.
 *   History: 1.0 the first release.
 *
 * ---------------------------------------------------------------------------
 * Ownership and lifetimes
 *   Every object is created by a *New function (or handed to you by a
 *   callback) and freed by the matching *Delete function, exactly once;
 *   Delete of NULL does nothing. Who owns what is said at each function:
 *   - Strings you pass in (paths, names, messages, JSON) are copied during
 *     the call unless said otherwise.
 *   - Strings the library returns as `const char*` belong to the object
 *     they were read from and live as long as it does.
 *   - Strings returned as `char**` (the JSON documents) are yours: free them
 *     with INFERD_StringDelete.
 *   - Input data is borrowed, never copied: you keep it valid and unchanged
 *     until the server calls your release function (see
 *     INFERD_InferRequestAddInput for when you may pass none).
 *   - Output data belongs to the server: a response points into the
 *     buffers the backend produced, valid until INFERD_InferResponseDelete
 *     of that response.
 *   - INFERD_ServerInfer and INFERD_ServerInferAsync take the request over,
 *     always, also when they fail.
 *
 * ---------------------------------------------------------------------------
 * Errors
 *   A function that can fail returns INFERD_Error*: NULL means success, and
 *   out-parameters are set only on success. An error is yours: read it with
 *   INFERD_ErrorGetCode / INFERD_ErrorGetMessage and free it with
 *   INFERD_ErrorDelete. Codes and what they mean here (the HTTP and gRPC
 *   status a network client would get for the same failure in brackets):
 *     INVALID_ARG   a bad argument or request: a NULL pointer, an input that
 *                   does not match the model, a malformed JSON config
 *                   (400 / INVALID_ARGUMENT)
 *     NOT_FOUND     an unknown model or version (404 / NOT_FOUND)
 *     UNAVAILABLE   a model that is not ready, a full queue, a server that
 *                   is stopping (503 / UNAVAILABLE)
 *     UNSUPPORTED   not possible in this configuration: loading in a model
 *                   control mode other than explicit, INFERD_ServerInfer on
 *                   a decoupled model (501 / UNIMPLEMENTED)
 *     DEADLINE_EXCEEDED  the request's timeout passed while it waited
 *                   (504 / DEADLINE_EXCEEDED)
 *     CANCELLED, ALREADY_EXISTS, INTERNAL (a backend failure), UNKNOWN.
 *   The message says what went wrong in the words the HTTP endpoint uses.
 *
 * ---------------------------------------------------------------------------
 * Threading
 *   - A server is thread-safe: every INFERD_Server* function except
 *     INFERD_ServerDelete may be called from any thread, concurrently.
 *   - Options, requests and responses are not: do not use one of them from
 *     two threads at once. Reading one response from several threads is
 *     fine (its accessors do not modify it).
 *   - Callbacks (INFERD_ResponseFn, INFERD_ReleaseFn) run on the server's
 *     threads, possibly on the calling thread before INFERD_ServerInferAsync
 *     returns (so do not hold a lock there that the callback takes). Keep
 *     them short and never block in them: the thread that runs one is a
 *     model instance's. From a callback you may send further requests with
 *     INFERD_ServerInferAsync, but must not call INFERD_ServerInfer,
 *     INFERD_ServerLoadModel, INFERD_ServerUnloadModel, INFERD_ServerStop or
 *     INFERD_ServerDelete (each waits for work that the blocked thread may
 *     be part of).
 *   - Several servers may live in one process; the log level is
 *     process-wide.
 */
#ifndef INFERD_INFERD_H_
#define INFERD_INFERD_H_

#include <stddef.h>
#include <stdint.h>

#include "inferd/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The API version of this header (see "Versioning" above). */
#define INFERD_API_VERSION_MAJOR 1
#define INFERD_API_VERSION_MINOR 0

#if defined(__GNUC__)
#define INFERD_EXPORT __attribute__((visibility("default")))
#else
#define INFERD_EXPORT
#endif

/* Opaque objects of the library. INFERD_Error, INFERD_InferRequest and
 * INFERD_InferResponse are the same types as in inferd/backend.h. */
typedef struct INFERD_Error INFERD_Error;
typedef struct INFERD_ServerOptions INFERD_ServerOptions;
typedef struct INFERD_EmbeddedServer INFERD_EmbeddedServer; /* a server in this process */
typedef struct INFERD_InferRequest INFERD_InferRequest;
typedef struct INFERD_InferResponse INFERD_InferResponse;

/* Gives memory lent to the server back to its owner (see
 * INFERD_InferRequestAddInput). Called exactly once, on any thread. */
typedef void (*INFERD_ReleaseFn)(void* release_context);

/* Flags of a response: the last response of a request carries
 * INFERD_RESPONSE_FLAG_FINAL (the same value as in inferd/backend.h). */
#define INFERD_RESPONSE_FLAG_FINAL 1u

/* ---- Version ------------------------------------------------------------ */

/* The API version of the library that is running (it may be newer than the
 * header a program was built with). Either pointer may be NULL. */
INFERD_EXPORT void INFERD_ApiVersion(uint32_t* major, uint32_t* minor);
/* inferd's release version, e.g. "0.1.0"; static storage. */
INFERD_EXPORT const char* INFERD_Version(void);

/* ---- Errors ------------------------------------------------------------- */

/* A new error (for callers that pass errors around like the library does);
 * `message` is copied and may be NULL. Never returns NULL. */
INFERD_EXPORT INFERD_Error* INFERD_ErrorNew(INFERD_ErrorCode code, const char* message);
/* The code of `error`; INFERD_ERROR_UNKNOWN for NULL. */
INFERD_EXPORT INFERD_ErrorCode INFERD_ErrorGetCode(const INFERD_Error* error);
/* The message, owned by `error`, valid until it is deleted; "" for NULL.
 * Never NULL. */
INFERD_EXPORT const char* INFERD_ErrorGetMessage(const INFERD_Error* error);
/* "INVALID_ARG", "NOT_FOUND", ... (static storage); "UNKNOWN" for a value
 * this library does not know. */
INFERD_EXPORT const char* INFERD_ErrorCodeName(INFERD_ErrorCode code);
INFERD_EXPORT void INFERD_ErrorDelete(INFERD_Error* error);

/* Frees a string the library returned through a `char**`. NULL does
 * nothing. */
INFERD_EXPORT void INFERD_StringDelete(char* string);

/* ---- Server options ----------------------------------------------------- */

/* What happens to the models after start-up (inferd serve
 * --model-control-mode; docs/configuration.md, "Model lifecycle"). */
typedef enum INFERD_ModelControlMode {
  /* Load every model of the repositories at start-up; nothing changes
   * afterwards. The default. */
  INFERD_MODEL_CONTROL_NONE = 0,
  /* Also rescan the repositories every poll interval and apply what
   * changed. */
  INFERD_MODEL_CONTROL_POLL = 1,
  /* Load only the start-up models, then what INFERD_ServerLoadModel asks
   * for. */
  INFERD_MODEL_CONTROL_EXPLICIT = 2
} INFERD_ModelControlMode;

/* Options start with inferd serve's defaults; every setter returns
 * INVALID_ARG for a NULL `options` or a value out of range, and leaves the
 * option unchanged then. An options object may be reused and deleted right
 * after INFERD_ServerNew. */
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsNew(INFERD_ServerOptions** options);
INFERD_EXPORT void INFERD_ServerOptionsDelete(INFERD_ServerOptions* options);
/* A model repository folder (Triton's layout). At least one is required;
 * call again for several (a model name must be unique across them). */
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsAddModelRepository(INFERD_ServerOptions* options,
                                                                   const char* path);
/* The folder holding <backend>/libinferd_<backend>.so. Default: "backends"
 * beside libinferd.so, which is where the build (build/lib/backends) and
 * `make install` (<prefix>/lib/backends) put them. */
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetBackendDirectory(INFERD_ServerOptions* options,
                                                                    const char* path);
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetModelControlMode(INFERD_ServerOptions* options,
                                                                    INFERD_ModelControlMode mode);
/* Explicit mode: a model to load at start-up ("*": every model). Call
 * again for several. */
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsAddStartupModel(INFERD_ServerOptions* options,
                                                                const char* model);
/* Poll mode: seconds between two repository scans (> 0; default 15). */
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetRepositoryPollSeconds(
    INFERD_ServerOptions* options, double seconds);
/* Non-zero (the default): ready only when every model that should be
 * loaded is; zero: ready whenever live. */
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetStrictReadiness(INFERD_ServerOptions* options,
                                                                   int strict);
/* Cores the server's default thread counts are sized for (>= 0; 0, the
 * default: every core this process may run on). */
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetCpuCores(INFERD_ServerOptions* options,
                                                            int cores);
/* Threads that load and warm up models (>= 0; 0, the default:
 * min(4, cores)). */
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetModelLoadThreads(INFERD_ServerOptions* options,
                                                                    int threads);
/* Non-zero (the default): complete a missing or partial config.pbtxt from
 * the model file. */
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetAutoCompleteConfig(INFERD_ServerOptions* options,
                                                                      int auto_complete);
/* How long INFERD_ServerStop and INFERD_ServerDelete wait for accepted
 * requests before answering those still queued with UNAVAILABLE (>= 0;
 * default 30, like inferd serve --exit-timeout-secs). */
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetExitTimeoutSeconds(INFERD_ServerOptions* options,
                                                                      double seconds);
/* "trace", "debug", "info", "warn", "error" or "off". Process-wide, set
 * when the server is created. Unset: the level stays as it is (spdlog's
 * default is info). */
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetLogLevel(INFERD_ServerOptions* options,
                                                            const char* level);

/* ---- Server ------------------------------------------------------------- */

/* Creates a server and loads its start-up models (every model, or in
 * explicit mode those added with INFERD_ServerOptionsAddStartupModel),
 * blocking until each has loaded or failed. A model that fails to load does
 * not fail this call: it is UNAVAILABLE with its reason in the repository
 * index, and the server is not ready (with strict readiness). Errors:
 * INVALID_ARG for NULL arguments or no model repository, NOT_FOUND for a
 * repository folder that does not exist. `options` stays the caller's. */
INFERD_EXPORT INFERD_Error* INFERD_ServerNew(INFERD_EmbeddedServer** server,
                                             const INFERD_ServerOptions* options);
/* Stops the server (INFERD_ServerStop) and frees it. Nothing else may use
 * `server` during or after this call; every callback of every request has
 * run when it returns. NULL does nothing. */
INFERD_EXPORT void INFERD_ServerDelete(INFERD_EmbeddedServer* server);
/* Graceful stop: readiness turns false and new requests get UNAVAILABLE
 * ("server is shutting down"); the requests already accepted are answered
 * (waiting up to the exit timeout, after which those still queued get
 * UNAVAILABLE and those executing finish); then every model is unloaded.
 * Blocks until done. Idempotent; other threads may keep calling the server
 * meanwhile (and get UNAVAILABLE). */
INFERD_EXPORT INFERD_Error* INFERD_ServerStop(INFERD_EmbeddedServer* server);

/* Live until stopped. */
INFERD_EXPORT INFERD_Error* INFERD_ServerIsLive(INFERD_EmbeddedServer* server, int* live);
/* Live, not stopping, and (with strict readiness) every model that should
 * be loaded is ready. */
INFERD_EXPORT INFERD_Error* INFERD_ServerIsReady(INFERD_EmbeddedServer* server, int* ready);
/* `version` > 0: that version; 0 or -1: the newest ready one. *ready is 0
 * for a known model that is not ready, and for a model a repository holds
 * that is not loaded (explicit mode), as Triton answers; NOT_FOUND for a
 * name no repository has, or an unknown version of a loaded model. */
INFERD_EXPORT INFERD_Error* INFERD_ServerModelIsReady(INFERD_EmbeddedServer* server,
                                                      const char* model, int64_t version,
                                                      int* ready);

/* The JSON documents below are what the HTTP endpoints answer (docs/api.md),
 * NUL-terminated UTF-8, owned by the caller (INFERD_StringDelete). */

/* {"name","version","extensions":[...]} (GET /v2). */
INFERD_EXPORT INFERD_Error* INFERD_ServerMetadata(INFERD_EmbeddedServer* server, char** json);
/* [{"name","version","state","reason"}] (POST /v2/repository/index): every
 * model version the server knows, or with `ready_only` the ready ones. */
INFERD_EXPORT INFERD_Error* INFERD_ServerModelIndex(INFERD_EmbeddedServer* server, int ready_only,
                                                    char** json);
/* {"name","versions","platform","inputs","outputs"} (GET
 * /v2/models/<model>[/versions/<version>]); shapes of a batching model
 * start with -1. `version` as for INFERD_ServerModelIsReady. NOT_FOUND for
 * an unknown model or version, UNAVAILABLE when it is not ready. */
INFERD_EXPORT INFERD_Error* INFERD_ServerModelMetadata(INFERD_EmbeddedServer* server,
                                                       const char* model, int64_t version,
                                                       char** json);
/* The completed ModelConfig as JSON (GET /v2/models/<model>/config). Errors
 * as for INFERD_ServerModelMetadata. */
INFERD_EXPORT INFERD_Error* INFERD_ServerModelConfig(INFERD_EmbeddedServer* server,
                                                     const char* model, int64_t version,
                                                     char** json);
/* {"model_stats":[...]} (GET /v2/models[/<model>[/versions/<version>]]/stats):
 * a NULL or empty `model` gives every ready model version (then `version`
 * must be 0 or -1); `version` 0 or -1 every ready version of `model`. */
INFERD_EXPORT INFERD_Error* INFERD_ServerModelStatistics(INFERD_EmbeddedServer* server,
                                                         const char* model, int64_t version,
                                                         char** json);

/* Explicit model control mode only (else UNSUPPORTED). Loads `model` from
 * the repositories, or reloads it when its files changed or a version is
 * not ready, and blocks until it is serving or has failed (INVALID_ARG with
 * the reason; NOT_FOUND when no repository has it). `config_json`, when not
 * NULL, is a ModelConfig as JSON that replaces the model's config.pbtxt
 * (the load API's `config` parameter). Loading an ensemble loads its
 * composing models first. */
INFERD_EXPORT INFERD_Error* INFERD_ServerLoadModel(INFERD_EmbeddedServer* server, const char* model,
                                                   const char* config_json);
/* Explicit mode only. Unloads every version of `model` and blocks until
 * each has been released (requests already accepted are answered first).
 * With `unload_dependents` non-zero, unloading an ensemble also unloads the
 * composing models nothing else uses. NOT_FOUND for a model the server does
 * not know. */
INFERD_EXPORT INFERD_Error* INFERD_ServerUnloadModel(INFERD_EmbeddedServer* server,
                                                     const char* model, int unload_dependents);

/* ---- Inference requests ------------------------------------------------- */

/* A request for `model`: `version` > 0 a fixed version, 0 or -1 the newest
 * ready one. The model is looked up when the request is sent. */
INFERD_EXPORT INFERD_Error* INFERD_InferRequestNew(INFERD_InferRequest** request, const char* model,
                                                   int64_t version);
/* Frees a request that was never sent; its inputs are released. */
INFERD_EXPORT void INFERD_InferRequestDelete(INFERD_InferRequest* request);
/* The request id, echoed in the response (INFERD_InferResponseId). */
INFERD_EXPORT INFERD_Error* INFERD_InferRequestSetId(INFERD_InferRequest* request, const char* id);
/* Adds an input without copying `data`: it must stay valid and unchanged
 * until release(release_context) is called, exactly once, on any thread,
 * once nothing in the server refers to it any more. That may be before this
 * call returns (when it fails, also for a NULL request or name), on
 * INFERD_InferRequestDelete, and before or after the response callback
 * runs. A NULL `release` tells you nothing: keep the memory valid as long
 * as the server may read it. For a model that is neither an ensemble nor
 * decoupled, that is until the request has been answered (INFERD_ServerInfer
 * has returned, or the FINAL callback has); an ensemble's other steps may
 * still run after one failed, and a decoupled backend may read its inputs
 * after its final response, so lend those inputs with a release function.
 * `shape` (copied) includes the batch
 * dimension when the model batches; BYTES data is length-prefixed (see
 * INFERD_TYPE_BYTES). INVALID_ARG when the byte size does not match the
 * shape and datatype, or a pointer is NULL; names and shapes are checked
 * against the model when the request is sent. */
INFERD_EXPORT INFERD_Error* INFERD_InferRequestAddInput(INFERD_InferRequest* request,
                                                        const char* name, INFERD_DataType datatype,
                                                        const int64_t* shape, size_t dim_count,
                                                        const void* data, size_t byte_size,
                                                        INFERD_ReleaseFn release,
                                                        void* release_context);
/* Names an output to return, in the order of the calls; none named: every
 * output of the model, in the order of its configuration. */
INFERD_EXPORT INFERD_Error* INFERD_InferRequestAddRequestedOutput(INFERD_InferRequest* request,
                                                                  const char* name);
/* A request still waiting in a queue `timeout_us` microseconds after it
 * was sent fails with DEADLINE_EXCEEDED (0: no timeout, the default). One
 * that already executes runs to its end. */
INFERD_EXPORT INFERD_Error* INFERD_InferRequestSetTimeout(INFERD_InferRequest* request,
                                                          uint64_t timeout_us);
/* Request parameters, as a network client sends them: "sequence_id",
 * "sequence_start", "sequence_end" for a sequence model, "priority", or any
 * parameter a model reads. Setting a key again replaces its value; keys
 * starting with "triton_" are refused when the request is sent. */
INFERD_EXPORT INFERD_Error* INFERD_InferRequestSetIntParameter(INFERD_InferRequest* request,
                                                               const char* key, int64_t value);
INFERD_EXPORT INFERD_Error* INFERD_InferRequestSetStringParameter(INFERD_InferRequest* request,
                                                                  const char* key,
                                                                  const char* value);
INFERD_EXPORT INFERD_Error* INFERD_InferRequestSetBoolParameter(INFERD_InferRequest* request,
                                                                const char* key, int value);

/* ---- Inference ---------------------------------------------------------- */

/* Receives the responses of one request sent with INFERD_ServerInferAsync:
 * a `response` (error NULL) or an `error` (response NULL), both now owned
 * by the callee (INFERD_InferResponseDelete, INFERD_ErrorDelete; they may
 * be kept past the callback). The last call carries
 * INFERD_RESPONSE_FLAG_FINAL in `flags`, and exactly one call does: an
 * ordinary model answers with that one call, a decoupled model
 * (model_transaction_policy { decoupled: true }) with any number of calls
 * before it. On the FINAL call both may be NULL: a decoupled model sent its
 * final flag alone. An error without the FINAL flag (a decoupled model's)
 * does not end the request. Calls for one request never overlap and come
 * in the order the model sent them. See "Threading" above. */
typedef void (*INFERD_ResponseFn)(void* context, INFERD_InferResponse* response,
                                  INFERD_Error* error, uint32_t flags);

/* Sends `request` (which now belongs to the server, also on error). Returns
 * INVALID_ARG, and calls nothing, only when an argument is NULL; otherwise
 * returns NULL and `on_response(context, ...)` is called as described at
 * INFERD_ResponseFn, possibly before this returns. Every request takes the
 * server's one path (the one HTTP and gRPC requests take): resolved,
 * validated against the model's config, queued in its scheduler (and
 * batched with other requests), counted in its statistics. */
INFERD_EXPORT INFERD_Error* INFERD_ServerInferAsync(INFERD_EmbeddedServer* server,
                                                    INFERD_InferRequest* request,
                                                    INFERD_ResponseFn on_response, void* context);
/* Sends `request` (which now belongs to the server, also on error) and
 * waits for its response, which the caller owns then. The inference's error
 * is returned as the error. A decoupled model is refused (UNSUPPORTED):
 * use INFERD_ServerInferAsync. Not from a callback. */
INFERD_EXPORT INFERD_Error* INFERD_ServerInfer(INFERD_EmbeddedServer* server,
                                               INFERD_InferRequest* request,
                                               INFERD_InferResponse** response);

/* ---- Responses ---------------------------------------------------------- */

/* The model and version that answered. `*model` is owned by the response. */
INFERD_EXPORT INFERD_Error* INFERD_InferResponseModel(const INFERD_InferResponse* response,
                                                      const char** model, int64_t* version);
/* The request's id ("" when it had none), owned by the response. */
INFERD_EXPORT INFERD_Error* INFERD_InferResponseId(const INFERD_InferResponse* response,
                                                   const char** id);
/* Outputs, in the order requested (or of the model's configuration). A
 * decoupled model's response may hold any subset of them, also none. */
INFERD_EXPORT INFERD_Error* INFERD_InferResponseOutputCount(const INFERD_InferResponse* response,
                                                            size_t* count);
/* Output `index` (< the count; else INVALID_ARG). Every pointer is owned by
 * the response and valid until INFERD_InferResponseDelete: `data` points at
 * the output's bytes where the backend wrote them (no copy), read-only;
 * `shape` includes the batch dimension when the model batches; BYTES data is
 * length-prefixed. Any out-pointer may be NULL. */
INFERD_EXPORT INFERD_Error* INFERD_InferResponseOutput(const INFERD_InferResponse* response,
                                                       size_t index, const char** name,
                                                       INFERD_DataType* datatype,
                                                       const int64_t** shape, size_t* dim_count,
                                                       const void** data, size_t* byte_size);
/* Frees a response; its output pointers are invalid afterwards. */
INFERD_EXPORT void INFERD_InferResponseDelete(INFERD_InferResponse* response);

/* ---- Data types --------------------------------------------------------- */

/* "INT32", "FP32", "BYTES", ... (the protocol's names; static storage), or
 * "INVALID". */
INFERD_EXPORT const char* INFERD_DataTypeName(INFERD_DataType datatype);
/* The size of one element in bytes; 0 for BYTES (variable) and INVALID. */
INFERD_EXPORT size_t INFERD_DataTypeByteSize(INFERD_DataType datatype);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* INFERD_INFERD_H_ */

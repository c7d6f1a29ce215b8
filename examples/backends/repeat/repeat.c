/* SPDX-License-Identifier: Apache-2.0 */
/*
 * repeat: a decoupled inferd backend in plain C (C11 and POSIX threads),
 * written against include/inferd/backend.h (ABI 1.4). It answers each
 * request with many responses, the way a token-streaming model does, and is
 * what the streaming endpoints (gRPC ModelStreamInfer, HTTP generate_stream)
 * are tested with. docs/backends.md describes it.
 *
 * Model contract (checked when the model loads):
 *   model_transaction_policy { decoupled: true }, max_batch_size: 0
 *   input  IN    TYPE_INT32  [-1]  the values to send back, one per response
 *   input  DELAY TYPE_UINT32 [-1]  optional, as long as IN: milliseconds to
 *                                  wait before response i
 *   input  WAIT  TYPE_UINT32 [1]   optional: milliseconds to wait after the
 *                                  last response before the final flag
 *   output OUT   TYPE_INT32  [1]   IN[i]
 *   output IDX   TYPE_UINT32 [1]   i
 * A request with n values gets n responses (each with the requested ones of
 * OUT and IDX), then the final flag alone. An empty IN gets the final flag
 * only. The request parameter fail_at_index (an integer) turns response i
 * into an error (INVALID_ARG) that does not end the request: how tests see
 * an error in the middle of a stream.
 *
 * Execute only checks the request and hands it to the instance's worker
 * thread, so it returns at once and one instance streams any number of
 * requests at the same time: the worker sends whatever response is due
 * next, across all of them. A request whose client went away
 * (api->RequestIsCancelled) is completed with INFERD_ERROR_CANCELLED at its
 * next response, or within kCancelPollMs while it waits.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "inferd/backend.h"

/* How often a waiting worker looks for cancelled requests. */
enum { kCancelPollMs = 20 };

struct INFERD_BackendModel {
  const INFERD_ServerApi* api;
  char name[256];
};

/* One request being answered. Only the worker touches it after Execute
 * queued it, so calls about the request never overlap. */
typedef struct Job {
  INFERD_Request* request;
  const int32_t* values;  /* IN, valid until RequestComplete */
  const uint32_t* delays; /* DELAY or NULL */
  uint32_t wait_ms;
  size_t count;
  size_t next;     /* the response to send next; == count: the final flag */
  uint64_t due_ns; /* when it is due, on api->NowNanoseconds */
  int want_out, want_idx;
  long long fail_at; /* fail_at_index, or -1 */
  struct Job* link;
} Job;

struct INFERD_BackendInstance {
  const INFERD_BackendModel* model;
  pthread_t worker;
  pthread_mutex_t mu;
  pthread_cond_t wake; /* on CLOCK_MONOTONIC */
  Job* jobs;           /* guarded by mu */
  int stopping;        /* guarded by mu */
};

static INFERD_Error* Fail(const INFERD_ServerApi* api, INFERD_ErrorCode code, const char* model,
                          const char* what) {
  char message[512];
  snprintf(message, sizeof(message), "repeat model '%s': %s", model, what);
  return api->ErrorNew(code, message);
}

static const INFERD_TensorSpec* FindTensor(const INFERD_TensorSpec* tensors, size_t count,
                                           const char* name) {
  for (size_t i = 0; i < count; ++i) {
    if (strcmp(tensors[i].name, name) == 0) return &tensors[i];
  }
  return NULL;
}

/* Checks one configured tensor: present (unless optional), of `type`,
 * one-dimensional. NULL when it is fine. */
static const char* CheckTensor(const INFERD_TensorSpec* tensor, INFERD_DataType type,
                               int required) {
  if (tensor == NULL) return required ? "is missing" : NULL;
  if (tensor->datatype != type) return "has the wrong data type";
  if (tensor->dims_count != 1) return "must have one dimension";
  return NULL;
}

INFERD_BACKEND_EXPORT uint32_t INFERD_BackendApiVersion(void) {
  return (INFERD_BACKEND_API_VERSION_MAJOR << 16) | INFERD_BACKEND_API_VERSION_MINOR;
}

INFERD_BACKEND_EXPORT INFERD_Error* INFERD_BackendModelCreate(const INFERD_ServerApi* api,
                                                              const INFERD_ModelSpec* spec,
                                                              INFERD_BackendModel** model) {
  /* Everything of ABI 1.4 this backend calls must be there. */
  if (api->struct_size <
          offsetof(INFERD_ServerApi, RequestIsCancelled) + sizeof(api->RequestIsCancelled) ||
      spec->struct_size < offsetof(INFERD_ModelSpec, decoupled) + sizeof(spec->decoupled)) {
    return api->ErrorNew(INFERD_ERROR_UNSUPPORTED,
                         "the repeat backend needs a server with backend ABI 1.4 or newer");
  }
  if (!spec->decoupled) {
    return Fail(api, INFERD_ERROR_INVALID_ARG, spec->name,
                "the repeat backend sends many responses per request: set "
                "model_transaction_policy { decoupled: true }");
  }
  if (spec->max_batch_size != 0) {
    return Fail(api, INFERD_ERROR_INVALID_ARG, spec->name,
                "the repeat backend does not batch: set max_batch_size: 0");
  }
  struct {
    const char* name;
    const INFERD_TensorSpec* tensor;
    INFERD_DataType type;
    int required;
  } checks[] = {
      {"input IN", FindTensor(spec->inputs, spec->input_count, "IN"), INFERD_TYPE_INT32, 1},
      {"input DELAY", FindTensor(spec->inputs, spec->input_count, "DELAY"), INFERD_TYPE_UINT32, 0},
      {"input WAIT", FindTensor(spec->inputs, spec->input_count, "WAIT"), INFERD_TYPE_UINT32, 0},
      {"output OUT", FindTensor(spec->outputs, spec->output_count, "OUT"), INFERD_TYPE_INT32, 1},
      {"output IDX", FindTensor(spec->outputs, spec->output_count, "IDX"), INFERD_TYPE_UINT32, 1},
  };
  for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); ++i) {
    const char* problem = CheckTensor(checks[i].tensor, checks[i].type, checks[i].required);
    if (problem != NULL) {
      char what[128];
      snprintf(what, sizeof(what),
               "%s %s (IN INT32 [-1], DELAY UINT32 [-1], WAIT UINT32 [1], "
               "OUT INT32 [1], IDX UINT32 [1])",
               checks[i].name, problem);
      return Fail(api, INFERD_ERROR_INVALID_ARG, spec->name, what);
    }
  }
  INFERD_BackendModel* created = calloc(1, sizeof(*created));
  if (created == NULL) return api->ErrorNew(INFERD_ERROR_INTERNAL, "out of memory");
  created->api = api;
  snprintf(created->name, sizeof(created->name), "%s", spec->name);
  *model = created;
  return NULL;
}

INFERD_BACKEND_EXPORT void INFERD_BackendModelDelete(INFERD_BackendModel* model) { free(model); }

static void FreeOutput(void* data) { free(data); }

/* Adds a one-element output of 4 bytes, when the client asked for it. */
static INFERD_Error* AddScalar(const INFERD_ServerApi* api, INFERD_Request* request,
                               const char* name, INFERD_DataType type, const void* value) {
  void* data = malloc(4);
  if (data == NULL) return api->ErrorNew(INFERD_ERROR_INTERNAL, "out of memory");
  memcpy(data, value, 4);
  const int64_t shape[1] = {1};
  return api->ResponseAddOutput(request, name, type, shape, 1, data, 4, FreeOutput, data);
}

/* Sends response job->next, or the final flag once all are sent; returns 1
 * when the job is over (the request was completed). */
static int Advance(const INFERD_BackendModel* model, Job* job) {
  const INFERD_ServerApi* api = model->api;
  if (api->RequestIsCancelled(job->request)) {
    api->RequestComplete(
        job->request, Fail(api, INFERD_ERROR_CANCELLED, model->name, "the request was cancelled"));
    return 1;
  }
  if (job->next == job->count) {
    INFERD_Error* error = api->RequestSendResponse(job->request, NULL, INFERD_RESPONSE_FLAG_FINAL);
    api->RequestComplete(job->request, error); /* only releases it after the final send */
    return 1;
  }
  const uint32_t index = (uint32_t)job->next;
  INFERD_Error* error = NULL;
  if ((long long)index == job->fail_at) {
    char what[96];
    snprintf(what, sizeof(what), "response %u failed, as the parameter fail_at_index asked", index);
    error = api->RequestSendResponse(job->request,
                                     Fail(api, INFERD_ERROR_INVALID_ARG, model->name, what), 0);
  } else {
    if (job->want_out) {
      error = AddScalar(api, job->request, "OUT", INFERD_TYPE_INT32, &job->values[index]);
    }
    if (error == NULL && job->want_idx) {
      error = AddScalar(api, job->request, "IDX", INFERD_TYPE_UINT32, &index);
    }
    if (error == NULL) error = api->RequestSendResponse(job->request, NULL, 0);
  }
  if (error != NULL) {
    api->RequestComplete(job->request, error);
    return 1;
  }
  ++job->next;
  const uint32_t delay_ms =
      job->next < job->count ? (job->delays != NULL ? job->delays[job->next] : 0) : job->wait_ms;
  job->due_ns = api->NowNanoseconds() + (uint64_t)delay_ms * 1000000u;
  return 0;
}

/* Waits on `wake` for at most `wait_ns` (or until signalled). The deadline is
 * on CLOCK_MONOTONIC, the clock the condition variable was made with; the
 * api's clock agrees with it in rate, which is all a relative wait needs. */
static void WaitFor(INFERD_BackendInstance* instance, uint64_t wait_ns) {
  struct timespec deadline;
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  deadline.tv_sec += (time_t)(wait_ns / 1000000000u);
  deadline.tv_nsec += (long)(wait_ns % 1000000000u);
  if (deadline.tv_nsec >= 1000000000L) {
    deadline.tv_sec += 1;
    deadline.tv_nsec -= 1000000000L;
  }
  pthread_cond_timedwait(&instance->wake, &instance->mu, &deadline);
}

static void* WorkerMain(void* arg) {
  INFERD_BackendInstance* instance = arg;
  const INFERD_ServerApi* api = instance->model->api;
  pthread_mutex_lock(&instance->mu);
  for (;;) {
    if (instance->jobs == NULL) {
      if (instance->stopping) break;
      pthread_cond_wait(&instance->wake, &instance->mu);
      continue;
    }
    /* Take the jobs that are due (or cancelled) out of the list, answer them
     * without the lock, and put back those that go on. */
    const uint64_t now = api->NowNanoseconds();
    Job* due = NULL;
    Job** link = &instance->jobs;
    uint64_t earliest = UINT64_MAX;
    while (*link != NULL) {
      Job* job = *link;
      if (job->due_ns <= now || api->RequestIsCancelled(job->request)) {
        *link = job->link;
        job->link = due;
        due = job;
      } else {
        if (job->due_ns < earliest) earliest = job->due_ns;
        link = &job->link;
      }
    }
    if (due == NULL) {
      uint64_t wait = earliest - now;
      if (wait > (uint64_t)kCancelPollMs * 1000000u) wait = (uint64_t)kCancelPollMs * 1000000u;
      WaitFor(instance, wait);
      continue;
    }
    pthread_mutex_unlock(&instance->mu);
    Job* again = NULL;
    while (due != NULL) {
      Job* job = due;
      due = job->link;
      if (Advance(instance->model, job)) {
        free(job);
      } else {
        job->link = again;
        again = job;
      }
    }
    pthread_mutex_lock(&instance->mu);
    while (again != NULL) {
      Job* job = again;
      again = job->link;
      job->link = instance->jobs;
      instance->jobs = job;
    }
  }
  pthread_mutex_unlock(&instance->mu);
  return NULL;
}

INFERD_BACKEND_EXPORT INFERD_Error* INFERD_BackendInstanceCreate(
    INFERD_BackendModel* model, uint32_t index, INFERD_BackendInstance** instance) {
  (void)index;
  const INFERD_ServerApi* api = model->api;
  INFERD_BackendInstance* created = calloc(1, sizeof(*created));
  if (created == NULL) return api->ErrorNew(INFERD_ERROR_INTERNAL, "out of memory");
  created->model = model;
  pthread_condattr_t attributes;
  pthread_condattr_init(&attributes);
  pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
  pthread_mutex_init(&created->mu, NULL);
  pthread_cond_init(&created->wake, &attributes);
  pthread_condattr_destroy(&attributes);
  const int started = pthread_create(&created->worker, NULL, WorkerMain, created);
  if (started != 0) {
    pthread_cond_destroy(&created->wake);
    pthread_mutex_destroy(&created->mu);
    free(created);
    return Fail(api, INFERD_ERROR_INTERNAL, model->name, strerror(started));
  }
  *instance = created;
  return NULL;
}

/* Every request given to the instance is completed by now (the server's
 * rule), so the worker finds no job and ends. */
INFERD_BACKEND_EXPORT void INFERD_BackendInstanceDelete(INFERD_BackendInstance* instance) {
  pthread_mutex_lock(&instance->mu);
  instance->stopping = 1;
  pthread_cond_signal(&instance->wake);
  pthread_mutex_unlock(&instance->mu);
  pthread_join(instance->worker, NULL);
  pthread_cond_destroy(&instance->wake);
  pthread_mutex_destroy(&instance->mu);
  free(instance);
}

/* The integer value of top-level `"key":` in the request's parameters, or -1.
 * The server writes that JSON compactly (no spaces), so a search for the
 * quoted key is enough for this example; a real backend uses a JSON parser. */
static long long IntParameter(const char* json, const char* key) {
  char quoted[64];
  snprintf(quoted, sizeof(quoted), "\"%s\":", key);
  const char* found = strstr(json, quoted);
  if (found == NULL) return -1;
  char* end = NULL;
  const long long value = strtoll(found + strlen(quoted), &end, 10);
  return end == found + strlen(quoted) ? -1 : value;
}

/* Reads the request's inputs into a job; NULL and an error for a bad request. */
static Job* NewJob(const INFERD_BackendModel* model, INFERD_Request* request,
                   INFERD_Error** error) {
  const INFERD_ServerApi* api = model->api;
  Job* job = calloc(1, sizeof(*job));
  if (job == NULL) {
    *error = api->ErrorNew(INFERD_ERROR_INTERNAL, "out of memory");
    return NULL;
  }
  job->request = request;
  job->fail_at = IntParameter(api->RequestParametersJson(request), "fail_at_index");
  size_t delay_count = 0;
  int has_delay = 0;
  const size_t inputs = api->RequestInputCount(request);
  for (size_t i = 0; i < inputs; ++i) {
    const char* name;
    INFERD_DataType type;
    const int64_t* shape;
    size_t dims;
    const void* data;
    size_t bytes;
    api->RequestInput(request, i, &name, &type, &shape, &dims, &data, &bytes);
    if (strcmp(name, "IN") == 0) {
      job->values = data;
      job->count = bytes / sizeof(int32_t);
    } else if (strcmp(name, "DELAY") == 0) {
      job->delays = data;
      delay_count = bytes / sizeof(uint32_t);
      has_delay = 1;
    } else if (strcmp(name, "WAIT") == 0) {
      memcpy(&job->wait_ms, data, sizeof(uint32_t)); /* the server checked its shape [1] */
    }
  }
  if (has_delay && delay_count != job->count) {
    char what[160];
    snprintf(what, sizeof(what), "input DELAY has %zu values but IN has %zu: one delay per value",
             delay_count, job->count);
    *error = Fail(api, INFERD_ERROR_INVALID_ARG, model->name, what);
    free(job);
    return NULL;
  }
  if (delay_count == 0) job->delays = NULL;
  const size_t outputs = api->RequestOutputCount(request);
  for (size_t i = 0; i < outputs; ++i) {
    const char* name = api->RequestOutputName(request, i);
    if (strcmp(name, "OUT") == 0) job->want_out = 1;
    if (strcmp(name, "IDX") == 0) job->want_idx = 1;
  }
  const uint32_t first_ms =
      job->count == 0 ? job->wait_ms : (job->delays != NULL ? job->delays[0] : 0);
  job->due_ns = api->NowNanoseconds() + (uint64_t)first_ms * 1000000u;
  return job;
}

INFERD_BACKEND_EXPORT void INFERD_BackendInstanceExecute(INFERD_BackendInstance* instance,
                                                         INFERD_Request** requests,
                                                         size_t request_count) {
  const INFERD_ServerApi* api = instance->model->api;
  for (size_t r = 0; r < request_count; ++r) {
    INFERD_Error* error = NULL;
    Job* job = NewJob(instance->model, requests[r], &error);
    if (job == NULL) {
      api->RequestComplete(requests[r], error);
      continue;
    }
    pthread_mutex_lock(&instance->mu);
    job->link = instance->jobs;
    instance->jobs = job;
    pthread_cond_signal(&instance->wake);
    pthread_mutex_unlock(&instance->mu);
  }
}

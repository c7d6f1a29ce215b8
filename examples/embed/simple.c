/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Embeds inferd in a C program: serves the example repository in-process and
 * runs Triton's `simple` model (OUTPUT0 = INPUT0 + INPUT1, OUTPUT1 = INPUT0 -
 * INPUT1, INT32 [batch, 16]) twice, once waiting for the answer and once with
 * a completion callback. No network: see docs/embedding.md.
 *
 *   make -C examples/embed && examples/embed/simple examples/models
 *
 * Only `simple` is loaded (explicit model control), so the program starts in
 * well under a second; leave out the two explicit-mode lines to load every
 * model of the repository, as `inferd serve` does.
 */
#include <inferd/inferd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ELEMENTS 16

/* Prints the error (if any), frees it, and tells whether there was one. */
static int failed(INFERD_Error* error, const char* what) {
  if (error == NULL) return 0;
  fprintf(stderr, "%s: %s: %s\n", what, INFERD_ErrorCodeName(INFERD_ErrorGetCode(error)),
          INFERD_ErrorGetMessage(error));
  INFERD_ErrorDelete(error);
  return 1;
}

/* A request for `simple` whose inputs are lent from `input0` and `input1`
 * (not copied: they must stay valid until the request has been answered). */
static INFERD_InferRequest* simple_request(const int32_t* input0, const int32_t* input1,
                                           const char* id) {
  const int64_t shape[2] = {1, ELEMENTS};
  INFERD_InferRequest* request = NULL;
  if (failed(INFERD_InferRequestNew(&request, "simple", -1), "INFERD_InferRequestNew")) return NULL;
  if (failed(INFERD_InferRequestSetId(request, id), "INFERD_InferRequestSetId") ||
      failed(INFERD_InferRequestAddInput(request, "INPUT0", INFERD_TYPE_INT32, shape, 2, input0,
                                         ELEMENTS * sizeof(int32_t), NULL, NULL),
             "INPUT0") ||
      failed(INFERD_InferRequestAddInput(request, "INPUT1", INFERD_TYPE_INT32, shape, 2, input1,
                                         ELEMENTS * sizeof(int32_t), NULL, NULL),
             "INPUT1")) {
    INFERD_InferRequestDelete(request);
    return NULL;
  }
  return request;
}

/* Prints every output of `response`, reading the server's buffers in place,
 * and checks them against the inputs. */
static int print_response(const INFERD_InferResponse* response, const int32_t* input0,
                          const int32_t* input1) {
  const char* model = NULL;
  const char* id = NULL;
  int64_t version = 0;
  size_t count = 0;
  if (failed(INFERD_InferResponseModel(response, &model, &version), "model") ||
      failed(INFERD_InferResponseId(response, &id), "id") ||
      failed(INFERD_InferResponseOutputCount(response, &count), "outputs")) {
    return 1;
  }
  printf("%s version %lld, request '%s':\n", model, (long long)version, id);
  for (size_t i = 0; i < count; ++i) {
    const char* name = NULL;
    INFERD_DataType datatype = INFERD_TYPE_INVALID;
    const int64_t* shape = NULL;
    size_t dims = 0;
    const void* data = NULL;
    size_t bytes = 0;
    if (failed(
            INFERD_InferResponseOutput(response, i, &name, &datatype, &shape, &dims, &data, &bytes),
            "output")) {
      return 1;
    }
    if (datatype != INFERD_TYPE_INT32 || bytes != ELEMENTS * sizeof(int32_t)) {
      fprintf(stderr, "%s: unexpected %s output of %zu bytes\n", name,
              INFERD_DataTypeName(datatype), bytes);
      return 1;
    }
    const int32_t* values = (const int32_t*)data;
    printf("  %s %s [%lld, %lld]:", name, INFERD_DataTypeName(datatype), (long long)shape[0],
           (long long)shape[1]);
    int wrong = 0;
    for (size_t k = 0; k < ELEMENTS; ++k) {
      printf(" %d", values[k]);
      const int32_t expected =
          strcmp(name, "OUTPUT0") == 0 ? input0[k] + input1[k] : input0[k] - input1[k];
      wrong |= values[k] != expected;
    }
    printf("\n");
    if (wrong) {
      fprintf(stderr, "%s is not what `simple` computes\n", name);
      return 1;
    }
  }
  return count == 2 ? 0 : 1;
}

/* The asynchronous call's state: the callback stores the response and wakes
 * main. It runs on a server thread, so it only hands over and returns. */
struct completion {
  pthread_mutex_t mutex;
  pthread_cond_t done_cond;
  int done;
  INFERD_InferResponse* response;
  INFERD_Error* error;
};

static void on_response(void* context, INFERD_InferResponse* response, INFERD_Error* error,
                        uint32_t flags) {
  struct completion* completion = (struct completion*)context;
  pthread_mutex_lock(&completion->mutex);
  completion->response = response;
  completion->error = error;
  /* `simple` is not decoupled: its one response carries the FINAL flag. */
  completion->done = (flags & INFERD_RESPONSE_FLAG_FINAL) != 0;
  pthread_cond_signal(&completion->done_cond);
  pthread_mutex_unlock(&completion->mutex);
}

int main(int argc, char** argv) {
  const char* repository = argc > 1 ? argv[1] : "examples/models";
  uint32_t major = 0, minor = 0;
  INFERD_ApiVersion(&major, &minor);
  printf("inferd %s, embedding API %u.%u\n", INFERD_Version(), major, minor);

  INFERD_ServerOptions* options = NULL;
  if (failed(INFERD_ServerOptionsNew(&options), "options")) return 1;
  int bad = failed(INFERD_ServerOptionsAddModelRepository(options, repository), "repository") ||
            failed(INFERD_ServerOptionsSetModelControlMode(options, INFERD_MODEL_CONTROL_EXPLICIT),
                   "mode") ||
            failed(INFERD_ServerOptionsAddStartupModel(options, "simple"), "startup model") ||
            failed(INFERD_ServerOptionsSetLogLevel(options, "warn"), "log level");
  INFERD_EmbeddedServer* server = NULL;
  if (!bad) bad = failed(INFERD_ServerNew(&server, options), "INFERD_ServerNew");
  INFERD_ServerOptionsDelete(options);
  if (bad) return 1;

  int ready = 0;
  if (failed(INFERD_ServerModelIsReady(server, "simple", -1, &ready), "ready") || !ready) {
    fprintf(stderr, "model 'simple' is not ready (is %s/simple/1/model.onnx there?)\n", repository);
    INFERD_ServerDelete(server);
    return 1;
  }

  int32_t input0[ELEMENTS], input1[ELEMENTS];
  for (int i = 0; i < ELEMENTS; ++i) {
    input0[i] = i;
    input1[i] = 1;
  }
  int status = 0;

  /* 1. Synchronous: INFERD_ServerInfer waits for the response. */
  INFERD_InferRequest* request = simple_request(input0, input1, "sync");
  INFERD_InferResponse* response = NULL;
  if (request == NULL || failed(INFERD_ServerInfer(server, request, &response), "infer")) {
    status = 1;
  } else {
    status |= print_response(response, input0, input1);
    INFERD_InferResponseDelete(response);
  }

  /* 2. Asynchronous: the callback receives the response. */
  struct completion completion = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, NULL,
                                  NULL};
  request = simple_request(input0, input1, "async");
  if (request == NULL ||
      failed(INFERD_ServerInferAsync(server, request, on_response, &completion), "infer async")) {
    status = 1;
  } else {
    pthread_mutex_lock(&completion.mutex);
    while (!completion.done) pthread_cond_wait(&completion.done_cond, &completion.mutex);
    pthread_mutex_unlock(&completion.mutex);
    if (failed(completion.error, "async response")) {
      status = 1;
    } else {
      status |= print_response(completion.response, input0, input1);
      INFERD_InferResponseDelete(completion.response);
    }
  }

  /* Drains what is still in flight, unloads the models, frees the server. */
  INFERD_ServerDelete(server);
  return status;
}

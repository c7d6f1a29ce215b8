// SPDX-License-Identifier: Apache-2.0
// inferd._inferd: the thin nanobind layer between the Python package
// (src/inferd) and the embedding C API (include/inferd/inferd.h). Inputs are
// lent to the server through the buffer protocol (no copy; the Py_buffer is
// released when the server is done), outputs come back as read-only numpy
// arrays over the server's memory whose owner is the Response (no copy).
// Every call that waits releases the GIL, since the server's threads take
// it to run Python callbacks and to release inputs.
#include <inferd/inferd.h>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace nb = nanobind;

namespace {

// A failed C API call, turned into inferd.errors.InferdError (with its code)
// by the translator registered in the module.
struct CapiError : std::exception {
  std::string code;
  std::string message;
  CapiError(std::string c, std::string m) : code(std::move(c)), message(std::move(m)) {}
  const char* what() const noexcept override { return message.c_str(); }
};

// Throws for a non-NULL error (which it frees).
void Check(INFERD_Error* error) {
  if (error == nullptr) return;
  CapiError failure(INFERD_ErrorCodeName(INFERD_ErrorGetCode(error)),
                    INFERD_ErrorGetMessage(error));
  INFERD_ErrorDelete(error);
  throw failure;
}

// A JSON document the library returned, as a Python str.
std::string TakeJson(char* json) {
  std::string text = json == nullptr ? "" : json;
  INFERD_StringDelete(json);
  return text;
}

INFERD_DataType DataTypeFromName(const std::string& name) {
  for (int value = 1; value < 64; ++value) {
    const auto type = static_cast<INFERD_DataType>(value);
    if (name == INFERD_DataTypeName(type)) return type;
    if (std::string(INFERD_DataTypeName(type)) == "INVALID") break;
  }
  throw CapiError("INVALID_ARG", "unknown datatype '" + name + "'");
}

// The numpy dtype of a fixed-size datatype; BF16 has none in numpy and is
// handed over as its uint16 bit patterns, BYTES as its raw encoding.
nb::dlpack::dtype DlpackType(INFERD_DataType type) {
  using nb::dlpack::dtype_code;
  auto make = [](dtype_code code, int bits) {
    return nb::dlpack::dtype{static_cast<uint8_t>(code), static_cast<uint8_t>(bits), 1};
  };
  switch (type) {
    case INFERD_TYPE_BOOL:
      return make(dtype_code::Bool, 8);
    case INFERD_TYPE_UINT8:
    case INFERD_TYPE_BYTES:
      return make(dtype_code::UInt, 8);
    case INFERD_TYPE_UINT16:
    case INFERD_TYPE_BF16:
      return make(dtype_code::UInt, 16);
    case INFERD_TYPE_UINT32:
      return make(dtype_code::UInt, 32);
    case INFERD_TYPE_UINT64:
      return make(dtype_code::UInt, 64);
    case INFERD_TYPE_INT8:
      return make(dtype_code::Int, 8);
    case INFERD_TYPE_INT16:
      return make(dtype_code::Int, 16);
    case INFERD_TYPE_INT32:
      return make(dtype_code::Int, 32);
    case INFERD_TYPE_INT64:
      return make(dtype_code::Int, 64);
    case INFERD_TYPE_FP16:
      return make(dtype_code::Float, 16);
    case INFERD_TYPE_FP32:
      return make(dtype_code::Float, 32);
    case INFERD_TYPE_FP64:
      return make(dtype_code::Float, 64);
    default:
      throw CapiError("INTERNAL", std::string("no numpy type for ") + INFERD_DataTypeName(type));
  }
}

// One response: the outputs stay in the server's buffers until the Python
// object (and every array made from it) is gone.
class Response {
 public:
  explicit Response(INFERD_InferResponse* response) : response_(response) {}
  ~Response() { INFERD_InferResponseDelete(response_); }
  Response(const Response&) = delete;
  Response& operator=(const Response&) = delete;

  std::string model_name() const {
    const char* model = nullptr;
    int64_t version = 0;
    Check(INFERD_InferResponseModel(response_, &model, &version));
    return model;
  }
  int64_t model_version() const {
    int64_t version = 0;
    Check(INFERD_InferResponseModel(response_, nullptr, &version));
    return version;
  }
  std::string id() const {
    const char* id = nullptr;
    Check(INFERD_InferResponseId(response_, &id));
    return id;
  }
  const INFERD_InferResponse* get() const { return response_; }

 private:
  INFERD_InferResponse* response_;
};

// [(name, datatype, shape, array)]: `array` views the output's bytes with
// `self` as its owner; BYTES outputs are their raw length-prefixed bytes
// (uint8), decoded by the Python side.
nb::list Outputs(nb::handle self) {
  const Response& response = nb::cast<const Response&>(self);
  size_t count = 0;
  Check(INFERD_InferResponseOutputCount(response.get(), &count));
  nb::list outputs;
  for (size_t i = 0; i < count; ++i) {
    const char* name = nullptr;
    INFERD_DataType datatype = INFERD_TYPE_INVALID;
    const int64_t* dims = nullptr;
    size_t dim_count = 0;
    const void* data = nullptr;
    size_t byte_size = 0;
    Check(INFERD_InferResponseOutput(response.get(), i, &name, &datatype, &dims, &dim_count, &data,
                                     &byte_size));
    nb::list shape;
    std::vector<size_t> view_shape;
    for (size_t d = 0; d < dim_count; ++d) {
      shape.append(dims[d]);
      view_shape.push_back(static_cast<size_t>(dims[d]));
    }
    if (datatype == INFERD_TYPE_BYTES) view_shape = {byte_size};
    static const char kEmpty = 0;  // a valid address for an empty output
    nb::ndarray<nb::numpy, nb::ro> array(data != nullptr ? data : &kEmpty, view_shape.size(),
                                         view_shape.data(), self, nullptr, DlpackType(datatype),
                                         nb::device::cpu::value);
    outputs.append(nb::make_tuple(nb::str(name), nb::str(INFERD_DataTypeName(datatype)),
                                  nb::tuple(shape), array.cast()));
  }
  return outputs;
}

// A Python buffer lent to the server for one input; given back (under the
// GIL) by the release callback. While the interpreter is going away nothing
// Python may be touched any more: the buffer is then left as it is.
struct LentBuffer {
  Py_buffer view{};
  static void Release(void* context) {
    auto* lent = static_cast<LentBuffer*>(context);
    if (nb::is_alive()) {
      nb::gil_scoped_acquire gil;
      PyBuffer_Release(&lent->view);
    }
    delete lent;
  }
};

struct RequestDeleter {
  void operator()(INFERD_InferRequest* r) const { INFERD_InferRequestDelete(r); }
};
using RequestPtr = std::unique_ptr<INFERD_InferRequest, RequestDeleter>;

// Builds a request from the Python side's description (GIL held).
// inputs: [(name, datatype, shape, buffer)], parameters: {key: bool|int|str}.
RequestPtr BuildRequest(const std::string& model, int64_t version, nb::list inputs,
                        const std::vector<std::string>& outputs, const std::string& id,
                        nb::dict parameters, uint64_t timeout_us) {
  INFERD_InferRequest* raw = nullptr;
  Check(INFERD_InferRequestNew(&raw, model.c_str(), version));
  RequestPtr request(raw);
  if (!id.empty()) Check(INFERD_InferRequestSetId(raw, id.c_str()));
  for (nb::handle item : inputs) {
    nb::tuple input = nb::cast<nb::tuple>(item);
    const std::string name = nb::cast<std::string>(input[0]);
    const INFERD_DataType datatype = DataTypeFromName(nb::cast<std::string>(input[1]));
    const std::vector<int64_t> shape = nb::cast<std::vector<int64_t>>(input[2]);
    auto lent = std::make_unique<LentBuffer>();
    if (PyObject_GetBuffer(input[3].ptr(), &lent->view, PyBUF_C_CONTIGUOUS) != 0) {
      throw nb::python_error();
    }
    // From here the C API owns the release: exactly once, also on error.
    LentBuffer* context = lent.release();
    Check(INFERD_InferRequestAddInput(raw, name.c_str(), datatype, shape.data(), shape.size(),
                                      context->view.buf, static_cast<size_t>(context->view.len),
                                      &LentBuffer::Release, context));
  }
  for (const std::string& output : outputs) {
    Check(INFERD_InferRequestAddRequestedOutput(raw, output.c_str()));
  }
  for (auto [key, value] : parameters) {
    const std::string k = nb::cast<std::string>(key);
    if (nb::isinstance<nb::bool_>(value)) {
      Check(INFERD_InferRequestSetBoolParameter(raw, k.c_str(), nb::cast<bool>(value) ? 1 : 0));
    } else if (nb::isinstance<nb::int_>(value)) {
      Check(INFERD_InferRequestSetIntParameter(raw, k.c_str(), nb::cast<int64_t>(value)));
    } else if (nb::isinstance<nb::str>(value)) {
      Check(INFERD_InferRequestSetStringParameter(raw, k.c_str(),
                                                  nb::cast<std::string>(value).c_str()));
    } else {
      throw CapiError("INVALID_ARG", "parameter '" + k + "' must be a bool, an int or a str");
    }
  }
  if (timeout_us > 0) Check(INFERD_InferRequestSetTimeout(raw, timeout_us));
  return request;
}

// Set while a Python callback runs on a server thread: the calls that wait
// for the server (closing it, loading, a synchronous inference) would wait
// for that very thread there (include/inferd/inferd.h, "Threading").
thread_local bool in_callback = false;

void RefuseInCallback(const char* what) {
  if (in_callback) {
    throw CapiError("UNSUPPORTED", std::string(what) +
                                       " cannot be called from an inference callback: it would "
                                       "wait for the thread running the callback");
  }
}

// The Python callable of one asynchronous request, called per response as
// callback(response | None, (code, message) | None, final: bool) on a server
// thread with the GIL; dropped after the final call.
struct AsyncCall {
  nb::object callback;
  static void OnResponse(void* context, INFERD_InferResponse* response, INFERD_Error* error,
                         uint32_t flags) {
    auto* call = static_cast<AsyncCall*>(context);
    const bool final = (flags & INFERD_RESPONSE_FLAG_FINAL) != 0;
    if (!nb::is_alive()) {  // the interpreter is gone: nobody to tell
      INFERD_InferResponseDelete(response);
      INFERD_ErrorDelete(error);
      if (final) {
        call->callback.release();  // no reference may be dropped without Python
        delete call;
      }
      return;
    }
    nb::gil_scoped_acquire gil;
    in_callback = true;
    try {
      nb::object py_response =
          response == nullptr ? nb::none()
                              : nb::cast(new Response(response), nb::rv_policy::take_ownership);
      nb::object py_error = nb::none();
      if (error != nullptr) {
        py_error = nb::make_tuple(INFERD_ErrorCodeName(INFERD_ErrorGetCode(error)),
                                  INFERD_ErrorGetMessage(error));
        INFERD_ErrorDelete(error);
      }
      call->callback(py_response, py_error, final);
    } catch (nb::python_error& e) {
      e.discard_as_unraisable("inferd: an inference callback");
    } catch (const std::exception& e) {
      PyErr_WarnFormat(PyExc_RuntimeWarning, 1, "inferd: an inference callback failed: %s",
                       e.what());
    }
    in_callback = false;
    if (final) delete call;  // with the GIL: drops the callable
  }
};

// A server in this process. Calls share `mu_`; close() takes it alone, so
// that it never frees the server under a call. Locks are taken with the GIL
// released: close() waits for requests whose callbacks need the GIL.
class Server {
 public:
  Server(const std::vector<std::string>& repositories, std::optional<std::string> backend_directory,
         int model_control_mode, const std::vector<std::string>& startup_models,
         bool strict_readiness, int cpu_cores, int model_load_threads, bool auto_complete_config,
         double repository_poll_secs, double exit_timeout_secs,
         std::optional<std::string> log_level) {
    INFERD_ServerOptions* options = nullptr;
    Check(INFERD_ServerOptionsNew(&options));
    std::unique_ptr<INFERD_ServerOptions, void (*)(INFERD_ServerOptions*)> owned(
        options, &INFERD_ServerOptionsDelete);
    for (const auto& repository : repositories) {
      Check(INFERD_ServerOptionsAddModelRepository(options, repository.c_str()));
    }
    if (backend_directory) {
      Check(INFERD_ServerOptionsSetBackendDirectory(options, backend_directory->c_str()));
    }
    Check(INFERD_ServerOptionsSetModelControlMode(
        options, static_cast<INFERD_ModelControlMode>(model_control_mode)));
    for (const auto& model : startup_models) {
      Check(INFERD_ServerOptionsAddStartupModel(options, model.c_str()));
    }
    Check(INFERD_ServerOptionsSetStrictReadiness(options, strict_readiness ? 1 : 0));
    Check(INFERD_ServerOptionsSetCpuCores(options, cpu_cores));
    Check(INFERD_ServerOptionsSetModelLoadThreads(options, model_load_threads));
    Check(INFERD_ServerOptionsSetAutoCompleteConfig(options, auto_complete_config ? 1 : 0));
    Check(INFERD_ServerOptionsSetRepositoryPollSeconds(options, repository_poll_secs));
    Check(INFERD_ServerOptionsSetExitTimeoutSeconds(options, exit_timeout_secs));
    if (log_level) Check(INFERD_ServerOptionsSetLogLevel(options, log_level->c_str()));
    INFERD_Error* error = nullptr;
    {
      nb::gil_scoped_release release;  // loading models may take long
      error = INFERD_ServerNew(&server_, options);
    }
    Check(error);
  }
  ~Server() {
    nb::gil_scoped_release release;
    std::unique_lock<std::shared_mutex> lock(mu_);
    INFERD_ServerDelete(server_);
  }

  void Close() {
    RefuseInCallback("Server.close()");
    nb::gil_scoped_release release;
    std::unique_lock<std::shared_mutex> lock(mu_);
    INFERD_ServerDelete(server_);
    server_ = nullptr;
  }

  void Stop() {
    RefuseInCallback("Server.stop()");
    Call([](INFERD_EmbeddedServer* s) { return INFERD_ServerStop(s); }, /*release_gil=*/true);
  }
  bool IsLive() {
    int live = 0;
    Call([&](INFERD_EmbeddedServer* s) { return INFERD_ServerIsLive(s, &live); });
    return live != 0;
  }
  bool IsReady() {
    int ready = 0;
    Call([&](INFERD_EmbeddedServer* s) { return INFERD_ServerIsReady(s, &ready); });
    return ready != 0;
  }
  bool ModelIsReady(const std::string& model, int64_t version) {
    int ready = 0;
    Call([&](INFERD_EmbeddedServer* s) {
      return INFERD_ServerModelIsReady(s, model.c_str(), version, &ready);
    });
    return ready != 0;
  }
  std::string Metadata() {
    char* json = nullptr;
    Call([&](INFERD_EmbeddedServer* s) { return INFERD_ServerMetadata(s, &json); });
    return TakeJson(json);
  }
  std::string ModelIndex(bool ready_only) {
    char* json = nullptr;
    Call([&](INFERD_EmbeddedServer* s) { return INFERD_ServerModelIndex(s, ready_only, &json); });
    return TakeJson(json);
  }
  std::string ModelMetadata(const std::string& model, int64_t version) {
    char* json = nullptr;
    Call([&](INFERD_EmbeddedServer* s) {
      return INFERD_ServerModelMetadata(s, model.c_str(), version, &json);
    });
    return TakeJson(json);
  }
  std::string ModelConfig(const std::string& model, int64_t version) {
    char* json = nullptr;
    Call([&](INFERD_EmbeddedServer* s) {
      return INFERD_ServerModelConfig(s, model.c_str(), version, &json);
    });
    return TakeJson(json);
  }
  std::string Statistics(const std::string& model, int64_t version) {
    char* json = nullptr;
    Call([&](INFERD_EmbeddedServer* s) {
      return INFERD_ServerModelStatistics(s, model.c_str(), version, &json);
    });
    return TakeJson(json);
  }
  void LoadModel(const std::string& model, std::optional<std::string> config_json) {
    RefuseInCallback("Server.load_model()");
    Call(
        [&](INFERD_EmbeddedServer* s) {
          return INFERD_ServerLoadModel(s, model.c_str(),
                                        config_json ? config_json->c_str() : nullptr);
        },
        /*release_gil=*/true);
  }
  void UnloadModel(const std::string& model, bool unload_dependents) {
    RefuseInCallback("Server.unload_model()");
    Call(
        [&](INFERD_EmbeddedServer* s) {
          return INFERD_ServerUnloadModel(s, model.c_str(), unload_dependents ? 1 : 0);
        },
        /*release_gil=*/true);
  }

  // Synchronous inference: the response (GIL released while waiting).
  Response* Infer(const std::string& model, int64_t version, nb::list inputs,
                  const std::vector<std::string>& outputs, const std::string& id,
                  nb::dict parameters, uint64_t timeout_us) {
    RefuseInCallback("Model.infer()");
    RequestPtr request = BuildRequest(model, version, inputs, outputs, id, parameters, timeout_us);
    INFERD_InferResponse* response = nullptr;
    Call(
        [&](INFERD_EmbeddedServer* s) {
          return INFERD_ServerInfer(s, request.release(), &response);
        },
        /*release_gil=*/true);
    return new Response(response);
  }

  // Asynchronous inference: `callback` as described at AsyncCall.
  void InferAsync(const std::string& model, int64_t version, nb::list inputs,
                  const std::vector<std::string>& outputs, const std::string& id,
                  nb::dict parameters, uint64_t timeout_us, nb::object callback) {
    RequestPtr request = BuildRequest(model, version, inputs, outputs, id, parameters, timeout_us);
    auto call = std::make_unique<AsyncCall>();
    call->callback = std::move(callback);
    AsyncCall* context = call.get();
    Call(
        [&](INFERD_EmbeddedServer* s) {
          INFERD_Error* error =
              INFERD_ServerInferAsync(s, request.release(), &AsyncCall::OnResponse, context);
          // Accepted: the final callback deletes `call`. Refused (only for
          // NULL arguments): nothing will be called.
          if (error == nullptr) call.release();
          return error;
        },
        /*release_gil=*/true);
  }

 private:
  // Runs `body` on the open server; raises for a closed one or an error.
  template <typename Body>
  void Call(Body&& body, bool release_gil = false) {
    INFERD_Error* error = nullptr;
    {
      nb::gil_scoped_release release;
      std::shared_lock<std::shared_mutex> lock(mu_);
      if (server_ == nullptr) {
        error = INFERD_ErrorNew(INFERD_ERROR_UNAVAILABLE, "the server is closed");
      } else if (release_gil) {
        error = body(server_);
      } else {
        // Short calls run with the GIL again, as any Python call would.
        nb::gil_scoped_acquire gil;
        error = body(server_);
      }
    }
    Check(error);
  }

  std::shared_mutex mu_;
  INFERD_EmbeddedServer* server_ = nullptr;
};

}  // namespace

NB_MODULE(_inferd, m) {
  m.doc() = "The embedding C API of inferd (include/inferd/inferd.h); use the `inferd` package.";

  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const CapiError& e) {
      nb::object cls = nb::module_::import_("inferd.errors").attr("InferdError");
      nb::object instance = cls(e.message, e.code);
      PyErr_SetObject(cls.ptr(), instance.ptr());
    }
  });

  m.def("api_version", [] {
    uint32_t major = 0, minor = 0;
    INFERD_ApiVersion(&major, &minor);
    return nb::make_tuple(major, minor);
  });
  m.def("version", [] { return std::string(INFERD_Version()); });

  nb::class_<Response>(m, "Response")
      .def_prop_ro("model_name", &Response::model_name)
      .def_prop_ro("model_version", &Response::model_version)
      .def_prop_ro("id", &Response::id)
      .def("outputs", &Outputs);

  nb::class_<Server>(m, "Server")
      .def(nb::init<const std::vector<std::string>&, std::optional<std::string>, int,
                    const std::vector<std::string>&, bool, int, int, bool, double, double,
                    std::optional<std::string>>(),
           nb::arg("repositories"), nb::arg("backend_directory").none(),
           nb::arg("model_control_mode"), nb::arg("startup_models"), nb::arg("strict_readiness"),
           nb::arg("cpu_cores"), nb::arg("model_load_threads"), nb::arg("auto_complete_config"),
           nb::arg("repository_poll_secs"), nb::arg("exit_timeout_secs"),
           nb::arg("log_level").none())
      .def("close", &Server::Close)
      .def("stop", &Server::Stop)
      .def("is_live", &Server::IsLive)
      .def("is_ready", &Server::IsReady)
      .def("model_is_ready", &Server::ModelIsReady)
      .def("metadata", &Server::Metadata)
      .def("model_index", &Server::ModelIndex)
      .def("model_metadata", &Server::ModelMetadata)
      .def("model_config", &Server::ModelConfig)
      .def("statistics", &Server::Statistics)
      .def("load_model", &Server::LoadModel, nb::arg("model"), nb::arg("config_json").none())
      .def("unload_model", &Server::UnloadModel)
      .def("infer", &Server::Infer, nb::rv_policy::take_ownership)
      .def("infer_async", &Server::InferAsync);
}

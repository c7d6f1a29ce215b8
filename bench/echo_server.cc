// SPDX-License-Identifier: Apache-2.0
// echo_server: the bare round trip of the KServe v2 protocol. It serves ONE model,
// described on the command line, over HTTP (Boost.Beast, one I/O thread) and gRPC
// (grpc++ callback API), and answers every infer at once with zero-filled outputs
// of the right size. It links none of inferd's layers: it is the transport limit
// that bench/run.sh compares inferd with.
//
//   echo_server --model simple --max-batch-size 8
//     --input INPUT0:INT32:16 --input INPUT1:INT32:16
//     --output OUTPUT0:INT32:16 --output OUTPUT1:INT32:16 --http-port 8000 --grpc-port 8001
#include <csignal>
#include <iostream>

#include "CLI/CLI.hpp"
#include "boost/asio/io_context.hpp"
#include "boost/asio/signal_set.hpp"
#include "echo/grpc_echo.h"
#include "echo/http_echo.h"
#include "echo/model_spec.h"

namespace {

struct Flags {
  std::string host = "127.0.0.1";
  int http_port = 8000;
  int grpc_port = 8001;
  inferd::bench::ModelSpec model;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
};

bool ParseTensors(const std::vector<std::string>& flags,
                  std::vector<inferd::bench::TensorSpec>& tensors) {
  for (const std::string& flag : flags) {
    auto tensor = inferd::bench::ParseTensorSpec(flag);
    if (!tensor.ok()) {
      std::cerr << "echo_server: " << tensor.status().message() << "\n";
      return false;
    }
    tensors.push_back(*std::move(tensor));
  }
  return true;
}

int Serve(Flags& flags) {
  if (!ParseTensors(flags.inputs, flags.model.inputs) ||
      !ParseTensors(flags.outputs, flags.model.outputs)) {
    return 2;
  }
  boost::asio::io_context io(1);
  auto http = inferd::bench::HttpEcho::Create(io, flags.model, flags.host, flags.http_port);
  if (!http.ok()) {
    std::cerr << "echo_server: " << http.status().message() << "\n";
    return 1;
  }
  auto grpc = inferd::bench::GrpcEcho::Create(flags.model, flags.host, flags.grpc_port);
  if (!grpc.ok()) {
    std::cerr << "echo_server: " << grpc.status().message() << "\n";
    return 1;
  }
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code&, int) {
    (*http)->Stop();
    io.stop();
  });
  std::cout << "echo_server: model " << flags.model.name << ", http " << flags.host << ":"
            << (*http)->port() << ", grpc " << flags.host << ":" << (*grpc)->port() << std::endl;
  io.run();
  (*grpc)->Stop();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"echo_server: a KServe v2 server that answers at once (the bare round trip)"};
  Flags flags;
  app.add_option("--model", flags.model.name, "Model name")->required();
  app.add_option("--platform", flags.model.platform, "Model platform")->capture_default_str();
  app.add_option("--max-batch-size", flags.model.max_batch_size, "max_batch_size (0: no batching)")
      ->capture_default_str();
  app.add_option("--input", flags.inputs, "Input NAME:DATATYPE:D1,D2 (dims without batch)")
      ->required();
  app.add_option("--output", flags.outputs, "Output NAME:DATATYPE:D1,D2 (dims without batch)")
      ->required();
  app.add_option("--host", flags.host, "Listen address")->capture_default_str();
  app.add_option("--http-port", flags.http_port, "HTTP port (0: a free one)")
      ->capture_default_str();
  app.add_option("--grpc-port", flags.grpc_port, "gRPC port (0: a free one)")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  return Serve(flags);
}

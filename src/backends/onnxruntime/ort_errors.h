// SPDX-License-Identifier: Apache-2.0
// Turns exceptions from the ONNX Runtime C++ API (and the standard library)
// into Status. Every extern "C" entry point runs its body through CatchAll so
// that no exception unwinds across the backend ABI.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <exception>
#include <new>

#include "status.h"

namespace inferd::ort {

// Maps ORT's error code (NO_SUCHFILE -> NOT_FOUND, bad model -> INVALID_ARG,
// anything else -> INTERNAL) and keeps its message.
Status StatusFromOrtException(const Ort::Exception& e);

// Runs `fn` (returning Status) and converts any exception it throws.
template <typename Fn>
Status CatchAll(Fn&& fn) noexcept {
  try {
    return fn();
  } catch (const Ort::Exception& e) {
    return StatusFromOrtException(e);
  } catch (const std::bad_alloc&) {
    return Status::Internal("onnxruntime backend: out of memory");
  } catch (const std::exception& e) {
    return Status::Internal(std::string("onnxruntime backend: ") + e.what());
  } catch (...) {
    return Status::Internal("onnxruntime backend: unknown exception");
  }
}

using backend_util::WithContext;  // "<context>: <message>"

}  // namespace inferd::ort

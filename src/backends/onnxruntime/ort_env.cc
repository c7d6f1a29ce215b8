// SPDX-License-Identifier: Apache-2.0
#include "ort_env.h"

namespace inferd::ort {

Ort::Env& SharedEnv() {
  // A function-local static is initialised once even with concurrent model
  // loads, and retried on the next call if construction throws. Deliberately
  // leaked: destroying the Env at exit could run before sessions a careless
  // host never deleted, which ORT does not allow.
  static Ort::Env* env = new Ort::Env(ORT_LOGGING_LEVEL_WARNING, "inferd");
  return *env;
}

}  // namespace inferd::ort

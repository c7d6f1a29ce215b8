// SPDX-License-Identifier: Apache-2.0
// Memory with several owners, freed when the last one lets go. The backend
// hands one allocation to the server more than once: the preprocessed tensor
// is both an output of the client's response and the input of the request
// to the next model; the outputs forwarded from the next model all live in
// one INFERD_InferResponse. The server calls one release function per
// hand-over, each exactly once but on any thread and in any order, so the
// count is atomic.
#ifndef IMAGE_PREPROCESS_SHARED_RELEASE_H_
#define IMAGE_PREPROCESS_SHARED_RELEASE_H_

#include <atomic>

namespace image_preprocess {

// A derived class frees its memory in its destructor.
class SharedRelease {
 public:
  SharedRelease() = default;  // one reference: the creator's
  SharedRelease(const SharedRelease&) = delete;
  SharedRelease& operator=(const SharedRelease&) = delete;

  // One more owner. Call it before each hand-over: the server may release
  // (on an error) before the call that hands the memory over returns.
  void Ref() { refs_.fetch_add(1, std::memory_order_relaxed); }

  // Drops one reference and deletes the object with the last. Also an
  // INFERD_ReleaseFn, with the SharedRelease as its context.
  static void Unref(void* context) {
    auto* self = static_cast<SharedRelease*>(context);
    // acq_rel: the last owner sees every other owner's use of the memory.
    if (self->refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete self;
  }

 protected:
  virtual ~SharedRelease() = default;  // only Unref deletes

 private:
  std::atomic<int> refs_{1};
};

// Drops a reference when it goes out of scope (unique_ptr's deleter).
struct Unref {
  void operator()(SharedRelease* shared) const { SharedRelease::Unref(shared); }
};

}  // namespace image_preprocess

#endif  // IMAGE_PREPROCESS_SHARED_RELEASE_H_

// SPDX-License-Identifier: Apache-2.0
// Triton's classification extension (docs/api.md, "Classification"): an
// output asked for with a class count k is answered as its top k entries,
// each the BYTES string "value:index" or "value:index:label".
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/tensor.h"

namespace inferd::core {

// One label per class index, by output name (the output's label_filename,
// one line per label). An output without labels is not in the map.
using ClassLabels = std::map<std::string, std::vector<std::string>, std::less<>>;

// OK for the numeric types classification can rank; InvalidArgument (with
// the type's name) for BOOL, BYTES and anything else. Triton ranks the
// integer and FP32/FP64 types; FP16 and BF16 are ranked here too, as floats.
absl::Status CheckClassifiable(DataType type);

// The top `class_count` entries of `output` (class_count > 0), highest value
// first; equal values keep index order and NaN ranks below every number.
// `batched`: the first dimension is the batch (max_batch_size > 0), and each
// row is ranked on its own, giving shape [rows, min(k, row size)]; otherwise
// the whole tensor is one row and the shape is [min(k, size)]. Values print
// as Triton prints them (std::to_string: integers in decimal, floats with six
// decimals). `labels` may be null or shorter than the row: an index without
// a label (or with an empty one) gives "value:index".
absl::StatusOr<Tensor> ClassifyTensor(const Tensor& output, int64_t class_count, bool batched,
                                      const std::vector<std::string>* labels);

}  // namespace inferd::core

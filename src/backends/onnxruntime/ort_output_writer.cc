// SPDX-License-Identifier: Apache-2.0
#include "ort_output_writer.h"

#include <memory>
#include <span>

#include "bytes_codec.h"
#include "ort_type_mapping.h"
#include "shape_util.h"
#include "shared_output.h"

namespace inferd::ort {
namespace {

// How one output maps onto the requests of the batch.
struct Layout {
  INFERD_DataType datatype = INFERD_TYPE_INVALID;
  bool slice = false;         // several batched requests: each gets its rows
  int64_t elements = 0;       // of the whole tensor
  int64_t item_elements = 0;  // per batch row (slice only)
  Dims whole_shape;           // response shape without slicing
  Dims item_shape;            // response shape of one row (slice only)
};

Status OutputError(const std::string& name, const std::string& what) {
  return Status::Internal("output '" + name + "': " + what);
}

// The config's view of model dims: its `dims` when it has a `reshape`.
StatusOr<Dims> ConfigView(const OutputToWrite& output, std::span<const int64_t> model_dims) {
  if (output.config == nullptr || !output.config->reshape) {
    return Dims(model_dims.begin(), model_dims.end());
  }
  return ResolveDims(output.config->dims, *output.config->reshape, model_dims, output.name);
}

StatusOr<Layout> Describe(const RequestBatch& batch, const std::vector<int64_t>& batch_sizes,
                          const OutputToWrite& output) {
  if (!output.value.IsTensor()) return OutputError(output.name, "is not a tensor");
  auto info = output.value.GetTensorTypeAndShapeInfo();
  std::optional<INFERD_DataType> datatype = FromOnnxType(info.GetElementType());
  if (!datatype) {
    return OutputError(output.name, std::string("unsupported element type ") +
                                        OnnxTypeName(info.GetElementType()));
  }
  if (output.config != nullptr && output.config->datatype != *datatype) {
    return OutputError(output.name, std::string("model produced ") + DataTypeName(*datatype) +
                                        " but the config says " +
                                        DataTypeName(output.config->datatype));
  }
  Layout layout;
  layout.datatype = *datatype;
  const Dims shape = info.GetShape();
  std::optional<int64_t> elements = ElementCount(shape);
  if (!elements) return OutputError(output.name, "invalid shape " + DimsToString(shape));
  layout.elements = *elements;
  const bool batched = !batch_sizes.empty() && !shape.empty();
  std::span<const int64_t> rows = batched ? std::span<const int64_t>(shape).subspan(1) : shape;
  StatusOr<Dims> view = ConfigView(output, rows);
  if (!view.ok()) return view.status();
  layout.whole_shape = batched ? Dims{shape[0]} : Dims{};
  layout.whole_shape.insert(layout.whole_shape.end(), view->begin(), view->end());
  if (batch.size() > 1) {
    int64_t total = 0;
    for (int64_t size : batch_sizes) total += size;
    if (!batched || shape[0] != total) {
      return OutputError(output.name, "shape " + DimsToString(shape) +
                                          " does not start with the batch size " +
                                          std::to_string(total));
    }
    std::optional<int64_t> per_row = ElementCount(rows);
    if (!per_row) return OutputError(output.name, "invalid shape " + DimsToString(shape));
    layout.slice = true;
    layout.item_elements = *per_row;
    layout.item_shape = std::move(*view);
  }
  return layout;
}

// Request i's response shape and its range of elements.
struct Slice {
  Dims shape;
  int64_t first = 0;
  int64_t count = 0;
};

Slice SliceFor(const Layout& layout, const std::vector<int64_t>& batch_sizes, size_t i,
               int64_t first_row) {
  if (!layout.slice) return Slice{layout.whole_shape, 0, layout.elements};
  Slice slice{Dims{batch_sizes[i]}, first_row * layout.item_elements,
              batch_sizes[i] * layout.item_elements};
  slice.shape.insert(slice.shape.end(), layout.item_shape.begin(), layout.item_shape.end());
  return slice;
}

void WriteFixed(RequestBatch& batch, const std::vector<int64_t>& batch_sizes, const Layout& layout,
                OutputToWrite& output) {
  const size_t element_size = ElementByteSize(layout.datatype);
  const auto* base = static_cast<const char*>(output.value.GetTensorRawData());
  // Our own reference, dropped on return; each handed-out slice adds one.
  std::unique_ptr<SharedOutput, void (*)(SharedOutput*)> shared(
      SharedOutput::Create(std::move(output.value)),
      [](SharedOutput* s) { SharedOutput::Unref(s); });
  int64_t row = 0;
  for (size_t i = 0; i < batch.size(); ++i) {
    const int64_t rows = layout.slice ? batch_sizes[i] : 0;
    if (output.wanted[i] && !batch.completed(i)) {
      const Slice slice = SliceFor(layout, batch_sizes, i, row);
      shared->Ref();
      INFERD_Error* error = batch.api().ResponseAddOutput(
          batch.request(i), output.name.c_str(), layout.datatype, slice.shape.data(),
          slice.shape.size(), base == nullptr ? nullptr : base + slice.first * element_size,
          static_cast<size_t>(slice.count) * element_size, &SharedOutput::Unref, shared.get());
      if (error != nullptr) batch.Complete(i, error);
    }
    row += rows;
  }
}

// Reads every element of a string tensor into one buffer plus offsets.
struct StringContent {
  std::string data;
  std::vector<size_t> offsets;
  std::string_view Element(size_t k) const {
    const size_t end = k + 1 < offsets.size() ? offsets[k + 1] : data.size();
    return std::string_view(data).substr(offsets[k], end - offsets[k]);
  }
};

StringContent ReadStrings(const Ort::Value& value, int64_t elements) {
  StringContent content;
  if (elements == 0) return content;
  content.data.resize(value.GetStringTensorDataLength());
  content.offsets.resize(static_cast<size_t>(elements));
  value.GetStringTensorContent(content.data.data(), content.data.size(), content.offsets.data(),
                               content.offsets.size());
  return content;
}

Status WriteStrings(RequestBatch& batch, const std::vector<int64_t>& batch_sizes,
                    const Layout& layout, const OutputToWrite& output) {
  const StringContent content = ReadStrings(output.value, layout.elements);
  for (size_t k = 0; k < content.offsets.size(); ++k) {
    if (content.Element(k).size() > UINT32_MAX) return OutputError(output.name, "string too long");
  }
  int64_t row = 0;
  for (size_t i = 0; i < batch.size(); ++i) {
    const int64_t rows = layout.slice ? batch_sizes[i] : 0;
    if (output.wanted[i] && !batch.completed(i)) {
      const Slice slice = SliceFor(layout, batch_sizes, i, row);
      auto encoded = std::make_unique<std::string>();
      for (int64_t k = slice.first; k < slice.first + slice.count; ++k) {
        AppendBytesElement(content.Element(static_cast<size_t>(k)), *encoded);
      }
      const std::string& text = *encoded;
      INFERD_Error* error = batch.api().ResponseAddOutput(
          batch.request(i), output.name.c_str(), INFERD_TYPE_BYTES, slice.shape.data(),
          slice.shape.size(), text.data(), text.size(), &DeleteString, encoded.release());
      if (error != nullptr) batch.Complete(i, error);
    }
    row += rows;
  }
  return Status();
}

}  // namespace

Status WriteOutput(RequestBatch& batch, const std::vector<int64_t>& batch_sizes,
                   OutputToWrite output) {
  StatusOr<Layout> layout = Describe(batch, batch_sizes, output);
  if (!layout.ok()) return layout.status();
  if (layout->datatype == INFERD_TYPE_BYTES) {
    return WriteStrings(batch, batch_sizes, *layout, output);
  }
  WriteFixed(batch, batch_sizes, *layout, output);
  return Status();
}

}  // namespace inferd::ort

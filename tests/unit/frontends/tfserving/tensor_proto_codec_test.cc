// SPDX-License-Identifier: Apache-2.0
// TensorProto <-> core::Tensor: every value field, tensor_content, TF's
// one-value broadcast, and the errors a bad tensor gets.
#include "frontends/tfserving/tensor_proto_codec.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/infer_helpers.h"

namespace inferd::frontends::tfserving {
namespace {

using core::DataType;
using inferd::testing::TensorValues;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

tensorflow::TensorProto Proto(tensorflow::DataType type, std::vector<int64_t> dims) {
  tensorflow::TensorProto proto;
  proto.set_dtype(type);
  for (int64_t d : dims) proto.mutable_tensor_shape()->add_dim()->set_size(d);
  return proto;
}

TEST(TensorProtoCodecTest, DecodesTypedValues) {
  auto proto = Proto(tensorflow::DT_FLOAT, {2, 2});
  for (float v : {1.5f, 2.f, 3.f, 4.f}) proto.add_float_val(v);
  auto tensor = DecodeTensorProto("x", proto);
  ASSERT_TRUE(tensor.ok()) << tensor.status();
  EXPECT_EQ(tensor->name, "x");
  EXPECT_EQ(tensor->datatype, DataType::kFp32);
  EXPECT_THAT(tensor->shape, ElementsAre(2, 2));
  EXPECT_THAT(TensorValues<float>(*tensor), ElementsAre(1.5f, 2.f, 3.f, 4.f));
}

TEST(TensorProtoCodecTest, NarrowIntegersComeFromIntVal) {
  auto proto = Proto(tensorflow::DT_UINT8, {3});
  for (int v : {0, 7, 255}) proto.add_int_val(v);
  auto tensor = DecodeTensorProto("x", proto);
  ASSERT_TRUE(tensor.ok()) << tensor.status();
  EXPECT_THAT(TensorValues<uint8_t>(*tensor), ElementsAre(0, 7, 255));
  proto.set_int_val(2, 256);
  auto bad = DecodeTensorProto("x", proto);
  EXPECT_TRUE(absl::IsInvalidArgument(bad.status()));
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("out of range"));
}

TEST(TensorProtoCodecTest, OneValueFillsTheShape) {
  auto proto = Proto(tensorflow::DT_INT32, {3});
  proto.add_int_val(9);
  auto tensor = DecodeTensorProto("x", proto);
  ASSERT_TRUE(tensor.ok());
  EXPECT_THAT(TensorValues<int32_t>(*tensor), ElementsAre(9, 9, 9));
}

TEST(TensorProtoCodecTest, TensorContentIsRawBytes) {
  auto proto = Proto(tensorflow::DT_INT64, {2});
  const int64_t values[] = {-1, 1LL << 40};
  proto.set_tensor_content(std::string(reinterpret_cast<const char*>(values), sizeof(values)));
  auto tensor = DecodeTensorProto("x", proto);
  ASSERT_TRUE(tensor.ok());
  EXPECT_THAT(TensorValues<int64_t>(*tensor), ElementsAre(-1, 1LL << 40));
  proto.set_tensor_content("abc");
  EXPECT_THAT(std::string(DecodeTensorProto("x", proto).status().message()),
              HasSubstr("tensor_content holds 3 bytes"));
}

TEST(TensorProtoCodecTest, StringsBecomeBytes) {
  auto proto = Proto(tensorflow::DT_STRING, {2});
  proto.add_string_val("a");
  proto.add_string_val(std::string("\0\xff", 2));
  auto tensor = DecodeTensorProto("s", proto);
  ASSERT_TRUE(tensor.ok());
  EXPECT_EQ(tensor->datatype, DataType::kBytes);
  EXPECT_THAT(inferd::testing::DecodeBytes(tensor->data.view()),
              ElementsAre("a", std::string("\0\xff", 2)));
}

TEST(TensorProtoCodecTest, RefusesWhatCannotBeServed) {
  auto count = Proto(tensorflow::DT_FLOAT, {3});
  count.add_float_val(1);
  count.add_float_val(2);
  EXPECT_THAT(std::string(DecodeTensorProto("x", count).status().message()),
              HasSubstr("holds 2 values, but its shape has 3 elements"));
  auto complex = Proto(tensorflow::DT_COMPLEX64, {1});
  EXPECT_THAT(std::string(DecodeTensorProto("x", complex).status().message()),
              HasSubstr("DT_COMPLEX64"));
  auto negative = Proto(tensorflow::DT_FLOAT, {-1});
  EXPECT_TRUE(absl::IsInvalidArgument(DecodeTensorProto("x", negative).status()));
  auto unknown = Proto(tensorflow::DT_FLOAT, {});
  unknown.mutable_tensor_shape()->set_unknown_rank(true);
  EXPECT_TRUE(absl::IsInvalidArgument(DecodeTensorProto("x", unknown).status()));
}

TEST(TensorProtoCodecTest, EncodesTypedFields) {
  tensorflow::TensorProto ints;
  ASSERT_TRUE(
      EncodeTensorProto(
          inferd::testing::MakeTensor<int32_t>("y", DataType::kInt32, {1, 2}, {5, -6}), ints)
          .ok());
  EXPECT_EQ(ints.dtype(), tensorflow::DT_INT32);
  ASSERT_EQ(ints.tensor_shape().dim_size(), 2);
  EXPECT_EQ(ints.tensor_shape().dim(1).size(), 2);
  EXPECT_THAT(ints.int_val(), ElementsAre(5, -6));
  tensorflow::TensorProto strings;
  ASSERT_TRUE(
      EncodeTensorProto(inferd::testing::MakeBytesTensor("s", {2}, {"x", "yz"}), strings).ok());
  EXPECT_EQ(strings.dtype(), tensorflow::DT_STRING);
  EXPECT_THAT(strings.string_val(), ElementsAre("x", "yz"));
  core::Tensor short_tensor =
      inferd::testing::MakeTensor<float>("f", DataType::kFp32, {3}, {1.f, 2.f});
  tensorflow::TensorProto bad;
  EXPECT_TRUE(absl::IsInternal(EncodeTensorProto(short_tensor, bad)));
}

TEST(TensorProtoCodecTest, DataTypesMapBothWays) {
  for (DataType type :
       {DataType::kBool, DataType::kUint8, DataType::kUint16, DataType::kUint32, DataType::kUint64,
        DataType::kInt8, DataType::kInt16, DataType::kInt32, DataType::kInt64, DataType::kFp16,
        DataType::kFp32, DataType::kFp64, DataType::kBytes, DataType::kBf16}) {
    EXPECT_EQ(FromTfDataType(ToTfDataType(type)), type);
  }
  EXPECT_EQ(ToTfDataType(DataType::kFp32), tensorflow::DT_FLOAT);
  EXPECT_EQ(ToTfDataType(DataType::kBytes), tensorflow::DT_STRING);
}

}  // namespace
}  // namespace inferd::frontends::tfserving

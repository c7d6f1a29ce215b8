// SPDX-License-Identifier: Apache-2.0
#include "core/tensor.h"

#include <string>

#include "gtest/gtest.h"

namespace inferd::core {
namespace {

TEST(BufferTest, CopyOwnsItsBytes) {
  std::string source = "abc";
  Buffer buffer = Buffer::Copy(source);
  source[0] = 'x';
  EXPECT_EQ(buffer.view(), "abc");
  EXPECT_NE(buffer.owner, nullptr);
}

TEST(BufferTest, OwnKeepsBytesAliveAcrossCopies) {
  Buffer copy;
  {
    Buffer buffer = Buffer::Own(std::string(1000, 'z'));
    copy = buffer;  // copying a Buffer shares, never copies, the bytes
    EXPECT_EQ(copy.data, buffer.data);
  }
  EXPECT_EQ(copy.size, 1000u);
  EXPECT_EQ(copy.view(), std::string(1000, 'z'));
}

TEST(BufferTest, EmptyBuffer) {
  Buffer buffer;
  EXPECT_EQ(buffer.size, 0u);
  EXPECT_TRUE(buffer.view().empty());
  EXPECT_TRUE(Buffer::Copy("").view().empty());
}

}  // namespace
}  // namespace inferd::core

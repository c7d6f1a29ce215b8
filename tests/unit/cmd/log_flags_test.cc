// SPDX-License-Identifier: Apache-2.0
#include "cmd/log_flags.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace inferd::cmd {
namespace {

using ::testing::HasSubstr;

std::string Level(TritonLogFlags flags) {
  absl::StatusOr<std::string> level = LevelFromTritonFlags(flags);
  return level.ok() ? *level : "error: " + std::string(level.status().message());
}

TEST(LogFlagsTest, TritonBooleans) {
  for (const char* yes : {"true", "TRUE", "on", "On", "1"}) EXPECT_EQ(ParseTritonBool(yes), true);
  for (const char* no : {"false", "False", "off", "OFF", "0"}) {
    EXPECT_EQ(ParseTritonBool(no), false);
  }
  for (const char* neither : {"", "yes", "2", "tru"})
    EXPECT_EQ(ParseTritonBool(neither), std::nullopt);
}

TEST(LogFlagsTest, VerboseLevels) {
  EXPECT_EQ(Level({.verbose = "0"}), "info");
  EXPECT_EQ(Level({.verbose = "1"}), "debug");
  EXPECT_EQ(Level({.verbose = "2"}), "trace");
  EXPECT_EQ(Level({.verbose = "true"}), "debug");
  EXPECT_EQ(Level({.verbose = "false"}), "info");
  EXPECT_THAT(Level({.verbose = "-1"}), HasSubstr("--log-verbose=-1"));
  EXPECT_THAT(Level({.verbose = "loud"}), HasSubstr("expected a level >= 0"));
}

TEST(LogFlagsTest, LevelsTurnOffFromTheBottomUp) {
  EXPECT_EQ(Level({.info = true}), "info");
  EXPECT_EQ(Level({.info = false}), "warn");
  EXPECT_EQ(Level({.info = false, .warning = false}), "error");
  EXPECT_EQ(Level({.info = false, .warning = false, .error = false}), "off");
}

TEST(LogFlagsTest, RefusesWhatOneThresholdCannotShow) {
  EXPECT_THAT(Level({.warning = false}), HasSubstr("from the bottom up"));
  EXPECT_THAT(Level({.info = false, .error = false}), HasSubstr("from the bottom up"));
  EXPECT_THAT(Level({.verbose = "1", .info = false}), HasSubstr("from the bottom up"));
}

TEST(LogFlagsTest, Formats) {
  EXPECT_TRUE(ApplyLogFormat("default").ok());
  EXPECT_TRUE(ApplyLogFormat("ISO8601").ok());
  const absl::Status bad = ApplyLogFormat("json");
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.message()), HasSubstr("expected default or ISO8601"));
}

}  // namespace
}  // namespace inferd::cmd

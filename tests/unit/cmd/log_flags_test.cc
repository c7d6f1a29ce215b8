// SPDX-License-Identifier: Apache-2.0
#include "cmd/log_flags.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <utility>

namespace inferd::cmd {
namespace {

using ::testing::HasSubstr;

// The flags with only these set (the others as if not given).
TritonLogFlags Given(std::optional<std::string> verbose, std::optional<bool> info = std::nullopt,
                     std::optional<bool> warning = std::nullopt,
                     std::optional<bool> error = std::nullopt) {
  TritonLogFlags flags;
  flags.verbose = std::move(verbose);
  flags.info = info;
  flags.warning = warning;
  flags.error = error;
  return flags;
}

std::string Level(const TritonLogFlags& flags) {
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
  EXPECT_EQ(Level(Given("0")), "info");
  EXPECT_EQ(Level(Given("1")), "debug");
  EXPECT_EQ(Level(Given("2")), "trace");
  EXPECT_EQ(Level(Given("true")), "debug");
  EXPECT_EQ(Level(Given("false")), "info");
  EXPECT_THAT(Level(Given("-1")), HasSubstr("--log-verbose=-1"));
  EXPECT_THAT(Level(Given("loud")), HasSubstr("expected a level >= 0"));
}

TEST(LogFlagsTest, LevelsTurnOffFromTheBottomUp) {
  EXPECT_EQ(Level(Given(std::nullopt, true)), "info");
  EXPECT_EQ(Level(Given(std::nullopt, false)), "warn");
  EXPECT_EQ(Level(Given(std::nullopt, false, false)), "error");
  EXPECT_EQ(Level(Given(std::nullopt, false, false, false)), "off");
}

TEST(LogFlagsTest, RefusesWhatOneThresholdCannotShow) {
  EXPECT_THAT(Level(Given(std::nullopt, std::nullopt, false)), HasSubstr("from the bottom up"));
  EXPECT_THAT(Level(Given(std::nullopt, false, std::nullopt, false)),
              HasSubstr("from the bottom up"));
  EXPECT_THAT(Level(Given("1", false)), HasSubstr("from the bottom up"));
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

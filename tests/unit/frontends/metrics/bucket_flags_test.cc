// SPDX-License-Identifier: Apache-2.0
#include "frontends/metrics/bucket_flags.h"

#include "core/model_stats.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace inferd::frontends::metrics {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(DurationBucketsTest, SecondsBecomeNanoseconds) {
  auto bounds = ParseDurationBuckets("0.00005, 0.001,0.5 ,1,2.5,10");
  ASSERT_TRUE(bounds.ok()) << bounds.status();
  EXPECT_THAT(*bounds, ElementsAre(50000, 1000000, 500000000, 1000000000, 2500000000, 10000000000));
  EXPECT_THAT(*ParseDurationBuckets("1e-9"), ElementsAre(1));
}

TEST(DurationBucketsTest, RejectsBadInput) {
  for (const char* text :
       {"", "0.1,", ",0.1", "0.1,,0.2", "abc", "0.1;0.2", "inf", "nan", "-1", "0", "1e-12", "1e20",
        "0.2,0.1", "0.1,0.1", "0.0000000001,0.0000000002"}) {
    auto bounds = ParseDurationBuckets(text);
    EXPECT_TRUE(absl::IsInvalidArgument(bounds.status())) << "'" << text << "'";
  }
  EXPECT_THAT(std::string(ParseDurationBuckets("0.2,0.1").status().message()),
              HasSubstr("strictly ascending"));
  EXPECT_THAT(std::string(ParseDurationBuckets("0.1,x").status().message()),
              HasSubstr("'x' is not a number of seconds"));
}

TEST(BatchSizeBucketsTest, PositiveAscendingIntegers) {
  EXPECT_THAT(*ParseBatchSizeBuckets("1,2, 4,8"), ElementsAre(1, 2, 4, 8));
  for (const char* text : {"", "0,1", "-1,2", "+1", "1.5", "2,1", "1,1", "1,,2", "x"}) {
    EXPECT_TRUE(absl::IsInvalidArgument(ParseBatchSizeBuckets(text).status()))
        << "'" << text << "'";
  }
}

TEST(BucketFormatTest, DefaultsRoundTrip) {
  const core::HistogramBounds defaults = core::HistogramBounds::Defaults();
  const std::string durations = FormatDurationBuckets(defaults.duration_ns);
  EXPECT_THAT(durations, ::testing::StartsWith("0.00005,0.0001,0.00025,"));
  EXPECT_EQ(*ParseDurationBuckets(durations), defaults.duration_ns);
  EXPECT_EQ(*ParseBatchSizeBuckets(FormatBatchSizeBuckets(defaults.batch_size)),
            defaults.batch_size);
}

}  // namespace
}  // namespace inferd::frontends::metrics

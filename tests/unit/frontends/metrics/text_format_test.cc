// SPDX-License-Identifier: Apache-2.0
// The text format writer: number formatting, escaping, family layout, and
// round trips through a strict parser of the format.
#include "frontends/metrics/text_format.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>

#include "exposition_parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace inferd::frontends::metrics {
namespace {

using ::testing::ElementsAre;
using testing::ParseExposition;

double ReadBack(const std::string& text) {
  if (text == "+Inf") return std::numeric_limits<double>::infinity();
  if (text == "-Inf") return -std::numeric_limits<double>::infinity();
  return std::strtod(text.c_str(), nullptr);
}

TEST(FormatValueTest, IntegersHaveNoFraction) {
  EXPECT_EQ(FormatValue(0), "0");
  EXPECT_EQ(FormatValue(-0.0), "0");
  EXPECT_EQ(FormatValue(1), "1");
  EXPECT_EQ(FormatValue(10), "10");
  EXPECT_EQ(FormatValue(-42), "-42");
  EXPECT_EQ(FormatValue(123456789012345.0), "123456789012345");
}

TEST(FormatValueTest, SpecialValuesAreSpelledAsPrometheusDoes) {
  EXPECT_EQ(FormatValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(FormatValue(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(FormatValue(std::nan("")), "NaN");
}

TEST(FormatValueTest, FractionsAreShortDecimals) {
  EXPECT_EQ(FormatValue(0.00005), "0.00005");
  EXPECT_EQ(FormatValue(0.0001), "0.0001");
  EXPECT_EQ(FormatValue(0.00025), "0.00025");
  EXPECT_EQ(FormatValue(2.5), "2.5");
  EXPECT_EQ(FormatValue(0.1), "0.1");
  EXPECT_EQ(FormatValue(1.5e-7), "1.5e-07");
  EXPECT_EQ(FormatValue(1e300), "1e+300");
}

TEST(FormatValueTest, EveryValueReadsBackExactly) {
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> exponent(-30, 30);
  for (int i = 0; i < 20000; ++i) {
    const double value = std::pow(10.0, exponent(random)) * ((i % 2) ? 1 : -1);
    ASSERT_EQ(ReadBack(FormatValue(value)), value) << FormatValue(value);
  }
  for (double value : {std::numeric_limits<double>::max(), std::numeric_limits<double>::min(),
                       std::numeric_limits<double>::denorm_min(), 1e15, 1e15 + 1, 0.3,
                       std::numeric_limits<double>::infinity()}) {
    EXPECT_EQ(ReadBack(FormatValue(value)), value) << FormatValue(value);
  }
}

TEST(EscapeTest, LabelValues) {
  EXPECT_EQ(EscapeLabelValue("plain"), "plain");
  EXPECT_EQ(EscapeLabelValue(R"(a\b)"), R"(a\\b)");
  EXPECT_EQ(EscapeLabelValue(R"(say "hi")"), R"(say \"hi\")");
  EXPECT_EQ(EscapeLabelValue("two\nlines"), R"(two\nlines)");
  EXPECT_EQ(EscapeLabelValue("tab\there"), "tab\there");  // only \, " and newline
  EXPECT_EQ(EscapeLabelValue("caf\xC3\xA9 \xE2\x82\xAC"), "caf\xC3\xA9 \xE2\x82\xAC");
}

TEST(EscapeTest, InvalidUtf8BecomesReplacementCharacters) {
  const std::string replacement = "\xEF\xBF\xBD";
  EXPECT_EQ(EscapeLabelValue("a\xFF"), "a" + replacement);
  EXPECT_EQ(EscapeLabelValue("\xC3"), replacement);                    // truncated
  EXPECT_EQ(EscapeLabelValue("\xC0\xAF"), replacement + replacement);  // overlong
  EXPECT_EQ(EscapeLabelValue("\xED\xA0\x80"),
            replacement + replacement + replacement);  // surrogate
}

TEST(EscapeTest, Help) {
  EXPECT_EQ(EscapeHelp(R"(a\b "q")"), R"(a\\b "q")");
  EXPECT_EQ(EscapeHelp("x\ny"), R"(x\ny)");
}

TEST(NameTest, MetricAndLabelNames) {
  EXPECT_TRUE(IsValidMetricName("inferd_inference_count_total"));
  EXPECT_TRUE(IsValidMetricName("ns:rule_1"));
  EXPECT_FALSE(IsValidMetricName("1abc"));
  EXPECT_FALSE(IsValidMetricName("a-b"));
  EXPECT_FALSE(IsValidMetricName(""));
  EXPECT_TRUE(IsValidLabelName("_model"));
  EXPECT_FALSE(IsValidLabelName("a:b"));
}

TEST(TextFormatWriterTest, CounterFamily) {
  TextFormatWriter writer;
  writer.BeginFamily("requests_total", "Requests\nserved.", MetricType::kCounter);
  writer.Sample({{"model", "m"}, {"version", "1"}}, uint64_t{18446744073709551615u});
  writer.Sample({}, int64_t{-3});
  writer.BeginFamily("temperature", "A gauge.", MetricType::kGauge);
  writer.Sample({{"where", "a\"b"}}, 0.5);
  EXPECT_EQ(writer.text(),
            "# HELP requests_total Requests\\nserved.\n"
            "# TYPE requests_total counter\n"
            "requests_total{model=\"m\",version=\"1\"} 18446744073709551615\n"
            "requests_total -3\n"
            "# HELP temperature A gauge.\n"
            "# TYPE temperature gauge\n"
            "temperature{where=\"a\\\"b\"} 0.5\n");
}

TEST(TextFormatWriterTest, HistogramIsCumulativeWithInf) {
  TextFormatWriter writer;
  writer.BeginFamily("latency_seconds", "Latency.", MetricType::kHistogram);
  HistogramData data;
  data.upper_bounds = {0.00005, 0.5, 10};
  data.cumulative_counts = {1, 3, 3, 4};
  data.sum = 12.25;
  data.count = 4;
  writer.Histogram({{"model", "m"}}, data);
  EXPECT_EQ(writer.text(),
            "# HELP latency_seconds Latency.\n"
            "# TYPE latency_seconds histogram\n"
            "latency_seconds_bucket{model=\"m\",le=\"0.00005\"} 1\n"
            "latency_seconds_bucket{model=\"m\",le=\"0.5\"} 3\n"
            "latency_seconds_bucket{model=\"m\",le=\"10\"} 3\n"
            "latency_seconds_bucket{model=\"m\",le=\"+Inf\"} 4\n"
            "latency_seconds_sum{model=\"m\"} 12.25\n"
            "latency_seconds_count{model=\"m\"} 4\n");
}

TEST(TextFormatWriterTest, HistogramWithoutLabelsOrBounds) {
  TextFormatWriter writer;
  writer.BeginFamily("h", "H.", MetricType::kHistogram);
  HistogramData data;
  data.cumulative_counts = {2};
  data.sum = 3;
  data.count = 2;
  writer.Histogram({}, data);
  EXPECT_EQ(writer.text(),
            "# HELP h H.\n# TYPE h histogram\n"
            "h_bucket{le=\"+Inf\"} 2\nh_sum 3\nh_count 2\n");
}

// Tricky label values survive a write and a strict read unchanged.
TEST(TextFormatWriterTest, LabelValuesRoundTrip) {
  const std::vector<std::string> values = {"",
                                           "plain",
                                           R"(back\slash)",
                                           R"(trailing\)",
                                           R"(\\double)",
                                           R"(quo"te)",
                                           R"(\")",
                                           "new\nline",
                                           "\n",
                                           R"(a\nb (literal backslash-n))",
                                           "} { , = #",
                                           "caf\xC3\xA9",
                                           "# HELP not a comment",
                                           "le=\"+Inf\"",
                                           R"(\"\n\\)"};
  TextFormatWriter writer;
  writer.BeginFamily("round_trip_total", R"(help with \ and "quotes")", MetricType::kCounter);
  for (size_t i = 0; i < values.size(); ++i) {
    writer.Sample({{"model", values[i]}, {"index", std::to_string(i)}}, static_cast<uint64_t>(i));
  }
  auto families = ParseExposition(writer.text());
  ASSERT_TRUE(families.ok()) << families.status() << "\n" << writer.text();
  ASSERT_EQ(families->size(), 1u);
  const testing::ParsedFamily& family = families->front();
  EXPECT_EQ(family.help, R"(help with \ and "quotes")");
  EXPECT_EQ(family.type, "counter");
  ASSERT_EQ(family.samples.size(), values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(family.samples[i].labels.at("model"), values[i]) << i;
    EXPECT_EQ(family.samples[i].labels.at("index"), std::to_string(i));
    EXPECT_EQ(family.samples[i].value, static_cast<double>(i));
  }
}

TEST(TextFormatWriterTest, HistogramRoundTrip) {
  TextFormatWriter writer;
  writer.BeginFamily("d_seconds", "D.", MetricType::kHistogram);
  HistogramData data;
  data.upper_bounds = {0.00005, 0.0001, 0.00025, 1, 2.5};
  data.cumulative_counts = {0, 1, 1, 5, 6, 7};
  data.sum = 9.75;
  data.count = 7;
  writer.Histogram({{"model", "x\"y"}}, data);
  auto families = ParseExposition(writer.text());
  ASSERT_TRUE(families.ok()) << families.status();
  std::vector<double> bounds;
  std::vector<double> counts;
  for (const auto& sample : families->front().samples) {
    if (sample.name != "d_seconds_bucket") continue;
    bounds.push_back(ReadBack(sample.labels.at("le")));
    counts.push_back(sample.value);
    EXPECT_EQ(sample.labels.at("model"), "x\"y");
  }
  EXPECT_THAT(bounds, ElementsAre(0.00005, 0.0001, 0.00025, 1, 2.5,
                                  std::numeric_limits<double>::infinity()));
  EXPECT_THAT(counts, ElementsAre(0, 1, 1, 5, 6, 7));
  EXPECT_EQ(testing::Value(*families, "d_seconds_sum", {}), 9.75);
  EXPECT_EQ(testing::Value(*families, "d_seconds_count", {}), 7);
}

TEST(ExpositionParserTest, RejectsMalformedText) {
  // The reader the round trips rely on must be able to fail.
  EXPECT_FALSE(ParseExposition("# HELP a x\n# TYPE a counter\na{m=\"unterminated} 1\n").ok());
  EXPECT_FALSE(ParseExposition("# HELP a x\n# TYPE a counter\na{m=\"bad\\t\"} 1\n").ok());
  EXPECT_FALSE(ParseExposition("# HELP a x\n# TYPE a counter\nb 1\n").ok());
  EXPECT_FALSE(ParseExposition("# HELP a x\n# TYPE a counter\na one\n").ok());
  EXPECT_FALSE(ParseExposition("# HELP a x\n# TYPE a counter\na 1").ok());
  EXPECT_FALSE(ParseExposition("# HELP a x\n# TYPE a counter\n# HELP a x\n").ok());
}

}  // namespace
}  // namespace inferd::frontends::metrics

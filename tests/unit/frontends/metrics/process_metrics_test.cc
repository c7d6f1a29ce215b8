// SPDX-License-Identifier: Apache-2.0
#include "frontends/metrics/process_metrics.h"

#include <fcntl.h>
#include <unistd.h>

#include <ctime>

#include "gtest/gtest.h"

namespace inferd::frontends::metrics {
namespace {

// proc(5): pid (comm) state ppid pgrp session tty_nr tpgid flags minflt
// cminflt majflt cmajflt utime stime cutime cstime priority nice
// num_threads itrealvalue starttime vsize rss ...
constexpr char kStat[] =
    "4242 (inf (er) d) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 75 0 0 20 0 9 0 123456 "
    "2000000000 30000 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 17 1 0 0 0 0 0\n";

TEST(ProcStatTest, ParsesFieldsAfterTheCommand) {
  auto stat = ParseProcStat(kStat);
  ASSERT_TRUE(stat.ok()) << stat.status();
  EXPECT_EQ(stat->utime_ticks, 250u);
  EXPECT_EQ(stat->stime_ticks, 75u);
  EXPECT_EQ(stat->start_ticks, 123456u);
}

TEST(ProcStatTest, RejectsMalformed) {
  EXPECT_FALSE(ParseProcStat("").ok());
  EXPECT_FALSE(ParseProcStat("1 (x S 1 2").ok());
  EXPECT_FALSE(ParseProcStat("1 (x) S 1 2 3").ok());
  EXPECT_FALSE(ParseProcStat("1 (x) S 1 1 1 0 -1 0 0 0 0 0 abc 1 0 0 20 0 1 0 5").ok());
}

TEST(BootTimeTest, ReadsBtime) {
  EXPECT_EQ(*ParseBootTime("cpu  1 2 3\nintr 5\nbtime 1700000000\nprocesses 9\n"), 1700000000u);
  EXPECT_FALSE(ParseBootTime("cpu 1 2 3\n").ok());
  EXPECT_FALSE(ParseBootTime("btime x\n").ok());
}

TEST(StatmTest, ReadsSizeAndResident) {
  auto pages = ParseStatm("5000 1200 300 10 0 900 0\n");
  ASSERT_TRUE(pages.ok());
  EXPECT_EQ(pages->first, 5000u);
  EXPECT_EQ(pages->second, 1200u);
  EXPECT_FALSE(ParseStatm("5000").ok());
}

TEST(ReadProcessMetricsTest, ReadsThisProcess) {
  auto before = ReadProcessMetrics();
  ASSERT_TRUE(before.ok()) << before.status();
  EXPECT_GT(before->resident_memory_bytes, 0);
  EXPECT_GE(before->virtual_memory_bytes, before->resident_memory_bytes);
  EXPECT_GE(before->cpu_seconds, 0);
  const double now = static_cast<double>(std::time(nullptr));
  EXPECT_LE(before->start_time_seconds, now + 1);
  EXPECT_GT(before->start_time_seconds, now - 3600);  // this test just started
  // One more open descriptor is seen.
  const int fd = open("/dev/null", O_RDONLY);
  ASSERT_GE(fd, 0);
  auto after = ReadProcessMetrics();
  close(fd);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->open_fds, before->open_fds + 1);
}

}  // namespace
}  // namespace inferd::frontends::metrics

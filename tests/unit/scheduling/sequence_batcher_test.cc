// SPDX-License-Identifier: Apache-2.0
// The sequence batcher over accumulator instances (y = x + state): slots,
// padding rows, the backlog, ordering within a sequence, control tensors,
// implicit state, idle release on a fake clock, Triton's errors, and
// cancellation, FailQueued and Stop answering every request once.
#include "scheduling/sequence_batcher.h"

#include <gtest/gtest.h>

#include <chrono>

#include "scheduling_test_support.h"
#include "sequence_test_support.h"
#include "testing/fake_clock.h"

namespace inferd::scheduling {
namespace {

using testing::AccumulatorConfig;
using testing::AccumulatorIO;
using testing::MakeAccumulators;
using testing::MakeSequenceRequest;
using testing::SequenceRequestSpec;

class SequenceBatcherTest : public ::testing::Test {
 protected:
  void Build(SequenceConfig config, int instances = 1, bool decoupled = false) {
    config_ = std::move(config);
    io_ = AccumulatorIO(config_.max_batch_size, stats_, decoupled);
    batcher_ = std::make_unique<SequenceBatcher>(config_, MakeAccumulators(instances, log_, gate_),
                                                 clock_, timer_);
  }
  void Send(const std::string& id, core::Parameter sequence, bool start, bool end, int32_t x,
            std::vector<std::string> outputs = {"y"}) {
    SequenceRequestSpec spec;
    spec.id = id;
    spec.sequence_id = std::move(sequence);
    spec.start = start;
    spec.end = end;
    spec.x = x;
    batcher_->Submit(MakeSequenceRequest(spec, answers_, io_, std::move(outputs)));
  }
  // Sends and waits for the answer.
  absl::Status Call(const std::string& id, core::Parameter sequence, bool start, bool end,
                    int32_t x) {
    const size_t before = answers_.count();
    Send(id, std::move(sequence), start, end, x);
    answers_.AwaitCount(before + 1);
    return *answers_.StatusOf(id);
  }

  inferd::testing::FakeClock clock_;
  testing::FakeTimer timer_;
  testing::SequenceLog log_;
  testing::SequenceGate gate_;
  testing::SequenceAnswers answers_;
  std::shared_ptr<core::ModelStats> stats_ = std::make_shared<core::ModelStats>();
  SequenceConfig config_;
  std::shared_ptr<const backends::ModelIO> io_;
  std::unique_ptr<SequenceBatcher> batcher_;
};

TEST_F(SequenceBatcherTest, ControlsAndStateFollowTheSequence) {
  Build(AccumulatorConfig(4, /*with_state=*/true));
  ASSERT_TRUE(Call("a1", uint64_t{7}, true, false, 1).ok());
  ASSERT_TRUE(Call("a2", uint64_t{7}, false, false, 2).ok());
  ASSERT_TRUE(Call("a3", uint64_t{7}, false, true, 3).ok());
  EXPECT_EQ(answers_.YOf("a1"), 1);
  EXPECT_EQ(answers_.YOf("a2"), 3);
  EXPECT_EQ(answers_.YOf("a3"), 6);
  // The state output is the server's, not the client's.
  EXPECT_EQ(answers_.OutputsOf("a3"), std::vector<std::string>{"y"});
  const auto r1 = log_.RowsOf("a1"), r2 = log_.RowsOf("a2"), r3 = log_.RowsOf("a3");
  ASSERT_EQ(r1.size(), 1u);
  EXPECT_EQ(r1[0].start, 1);
  EXPECT_EQ(r1[0].end, 0);
  EXPECT_EQ(r1[0].ready, 1);
  EXPECT_EQ(r1[0].corrid, 7u);
  EXPECT_EQ(r1[0].state, 0);
  EXPECT_EQ(r1[0].start_shape, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(r2[0].start, 0);
  EXPECT_EQ(r2[0].end, 0);
  EXPECT_EQ(r2[0].state, 1);
  EXPECT_EQ(r3[0].end, 1);
  EXPECT_EQ(r3[0].state, 3);
  // The sequence ended: a request without START is refused.
  EXPECT_EQ(Call("a4", uint64_t{7}, false, false, 1).message(),
            "inference request for sequence 7 to model 'm' must specify the START flag on the "
            "first request of the sequence");
}

TEST_F(SequenceBatcherTest, DecoupledModelSendsTheStateInAResponse) {
  Build(AccumulatorConfig(2, true), 1, /*decoupled=*/true);
  ASSERT_TRUE(Call("a1", uint64_t{4}, true, false, 1).ok());
  ASSERT_TRUE(Call("a2", uint64_t{4}, false, true, 2).ok());
  EXPECT_EQ(answers_.PartialYsOf("a1"), std::vector<int32_t>{1});
  EXPECT_EQ(answers_.PartialYsOf("a2"), std::vector<int32_t>{3});  // the state came along
  EXPECT_EQ(log_.RowsOf("a2")[0].state, 1);
}

TEST_F(SequenceBatcherTest, ClientMayAskForTheStateOutput) {
  Build(AccumulatorConfig(4, true));
  Send("a1", uint64_t{3}, true, true, 5, {"y", "S_OUT"});
  answers_.AwaitCount(1);
  EXPECT_EQ(answers_.OutputsOf("a1"), (std::vector<std::string>{"y", "S_OUT"}));
}

TEST_F(SequenceBatcherTest, NonBatchingModelGetsRankOneControls) {
  Build(AccumulatorConfig(0, true));
  ASSERT_TRUE(Call("a1", uint64_t{1}, true, false, 4).ok());
  ASSERT_TRUE(Call("a2", uint64_t{1}, false, true, 4).ok());
  EXPECT_EQ(answers_.YOf("a2"), 8);
  EXPECT_EQ(log_.RowsOf("a1")[0].start_shape, std::vector<int64_t>{1});
}

TEST_F(SequenceBatcherTest, SlotsAreBatchRowsAndGapsArePadded) {
  Build(AccumulatorConfig(4, true));
  gate_.Close();
  Send("a1", uint64_t{1}, true, false, 1);  // slot 0, runs and is held
  log_.AwaitBatches(1);
  Send("b1", uint64_t{2}, true, false, 10);  // slot 1
  Send("c1", uint64_t{3}, true, false, 20);  // slot 2
  gate_.Open();
  answers_.AwaitCount(3);
  const auto batches = log_.batches();
  ASSERT_EQ(batches.size(), 2u);
  const auto& rows = batches[1].second;
  ASSERT_EQ(rows.size(), 3u);  // up to the highest slot with a request
  EXPECT_EQ(rows[0].id, "");   // slot 0's sequence sent nothing: padding
  EXPECT_EQ(rows[0].ready, 0);
  EXPECT_EQ(rows[0].start, 0);
  EXPECT_EQ(rows[0].corrid, 0u);
  EXPECT_EQ(rows[0].x, 0);
  EXPECT_EQ(rows[0].state, 0);
  EXPECT_EQ(rows[1].id, "b1");
  EXPECT_EQ(rows[1].ready, 1);
  EXPECT_EQ(rows[2].id, "c1");
  EXPECT_EQ(answers_.count(), 3u);  // the padding's answer went nowhere
  // The slots stay with their sequences.
  ASSERT_TRUE(Call("a2", uint64_t{1}, false, false, 2).ok());
  EXPECT_EQ(answers_.YOf("a2"), 3);
  EXPECT_EQ(log_.batches().back().second.size(), 1u);
  ASSERT_TRUE(Call("c2", uint64_t{3}, false, false, 2).ok());
  EXPECT_EQ(answers_.YOf("c2"), 22);
  const auto last = log_.batches().back().second;
  ASSERT_EQ(last.size(), 3u);
  EXPECT_EQ(last[2].id, "c2");
  EXPECT_EQ(last[1].ready, 0);
}

TEST_F(SequenceBatcherTest, OneRequestPerSequenceInABatchInOrder) {
  Build(AccumulatorConfig(4, true));
  gate_.Close();
  Send("a1", uint64_t{1}, true, false, 1);
  log_.AwaitBatches(1);
  Send("a2", uint64_t{1}, false, false, 2);
  Send("a3", uint64_t{1}, false, true, 3);
  gate_.Open();
  answers_.AwaitCount(3);
  const auto batches = log_.batches();
  ASSERT_EQ(batches.size(), 3u);
  for (const auto& [instance, rows] : batches) EXPECT_EQ(rows.size(), 1u);
  EXPECT_EQ(batches[1].second[0].id, "a2");
  EXPECT_EQ(batches[2].second[0].id, "a3");
  EXPECT_EQ(answers_.YOf("a3"), 6);
}

TEST_F(SequenceBatcherTest, BacklogWaitsForAFreeSlot) {
  Build(AccumulatorConfig(1, true));  // one instance, one slot
  ASSERT_TRUE(Call("a1", uint64_t{1}, true, false, 1).ok());
  Send("b1", uint64_t{2}, true, false, 10);
  Send("b2", uint64_t{2}, false, true, 20);
  EXPECT_EQ(answers_.CountOf("b1"), 0u);  // no slot until sequence 1 ends
  ASSERT_TRUE(Call("a2", uint64_t{1}, false, true, 2).ok());
  answers_.AwaitCount(4);
  EXPECT_EQ(answers_.YOf("b1"), 10);
  EXPECT_EQ(answers_.YOf("b2"), 30);  // its own state, from the initial one
  const auto batches = log_.batches();
  ASSERT_EQ(batches.size(), 4u);
  EXPECT_EQ(batches[2].second[0].id, "b1");
  EXPECT_EQ(batches[2].second[0].start, 1);
}

TEST_F(SequenceBatcherTest, SequencesSpreadOverInstances) {
  Build(AccumulatorConfig(2, true), /*instances=*/2);
  gate_.Close();
  Send("a1", uint64_t{1}, true, false, 1);
  Send("b1", uint64_t{2}, true, false, 1);
  log_.AwaitBatches(2);  // each on its own instance, both running at once
  gate_.Open();
  answers_.AwaitCount(2);
  const auto batches = log_.batches();
  EXPECT_NE(batches[0].first, batches[1].first);
}

TEST_F(SequenceBatcherTest, StartOnARunningSequenceRestartsItsState) {
  Build(AccumulatorConfig(2, true));
  ASSERT_TRUE(Call("a1", uint64_t{5}, true, false, 5).ok());
  ASSERT_TRUE(Call("a2", uint64_t{5}, false, false, 1).ok());
  EXPECT_EQ(answers_.YOf("a2"), 6);
  ASSERT_TRUE(Call("a3", uint64_t{5}, true, false, 2).ok());
  EXPECT_EQ(answers_.YOf("a3"), 2);
  EXPECT_EQ(log_.RowsOf("a3")[0].start, 1);
}

TEST_F(SequenceBatcherTest, InitialStateSeedsEverySequence) {
  SequenceConfig config = AccumulatorConfig(2, true);
  const int32_t hundred = 100;
  config.states[0].initial_data =
      core::Buffer::Copy(std::string_view(reinterpret_cast<const char*>(&hundred), 4));
  Build(std::move(config));
  ASSERT_TRUE(Call("a1", uint64_t{1}, true, true, 1).ok());
  EXPECT_EQ(answers_.YOf("a1"), 101);
  ASSERT_TRUE(Call("b1", uint64_t{1}, true, true, 2).ok());
  EXPECT_EQ(answers_.YOf("b1"), 102);
}

TEST_F(SequenceBatcherTest, IdleSequenceIsReleasedOnTheFakeClock) {
  SequenceConfig config = AccumulatorConfig(1, true);
  config.max_sequence_idle_micros = 1000;
  Build(std::move(config));
  ASSERT_TRUE(Call("a1", uint64_t{9}, true, false, 1).ok());
  EXPECT_TRUE(timer_.ScheduledFor(batcher_.get()).has_value());
  clock_.Advance(std::chrono::microseconds(999));
  batcher_->OnDeadline();
  ASSERT_TRUE(Call("a2", uint64_t{9}, false, false, 1).ok());  // not idle yet
  clock_.Advance(std::chrono::microseconds(1000));
  batcher_->OnDeadline();
  EXPECT_EQ(Call("a3", uint64_t{9}, false, false, 1).message(),
            "inference request for sequence 9 to model 'm' must specify the START flag on the "
            "first request of the sequence");
  // Its slot (the only one) is free for a new sequence.
  ASSERT_TRUE(Call("b1", uint64_t{10}, true, false, 3).ok());
  EXPECT_EQ(answers_.YOf("b1"), 3);
}

TEST_F(SequenceBatcherTest, TritonErrors) {
  Build(AccumulatorConfig(4, true));
  EXPECT_EQ(Call("zero", uint64_t{0}, true, false, 1).message(),
            "inference request to model 'm' must specify a non-zero or non-empty correlation ID");
  EXPECT_EQ(Call("empty", std::string(), true, false, 1).message(),
            "inference request to model 'm' must specify a non-zero or non-empty correlation ID");
  EXPECT_EQ(Call("string", std::string("abc"), true, false, 1).message(),
            "[request id: string] sequence batching control 'CORRID' data-type is 'BYTES', but "
            "model 'm' expects 'UINT64'");
  EXPECT_EQ(Call("nostart", uint64_t{4}, false, false, 1).code(),
            absl::StatusCode::kInvalidArgument);
  SequenceRequestSpec two;
  two.id = "two";
  two.sequence_id = uint64_t{3};
  two.start = true;
  two.rows = 2;
  batcher_->Submit(MakeSequenceRequest(two, answers_, io_));
  answers_.AwaitCount(5);
  EXPECT_EQ(answers_.StatusOf("two")->message(),
            "inference request to model 'm' must specify batch-size 1 due to requirements of "
            "sequence batcher");
  EXPECT_EQ(log_.batches().size(), 0u);
}

TEST_F(SequenceBatcherTest, StringIdsWithAStringCorrId) {
  SequenceConfig config = AccumulatorConfig(2, true);
  config.controls.back().datatype = core::DataType::kBytes;
  Build(std::move(config));
  ASSERT_TRUE(Call("s1", std::string("session-a"), true, false, 1).ok());
  ASSERT_TRUE(Call("s2", std::string("session-a"), false, true, 2).ok());
  EXPECT_EQ(answers_.YOf("s2"), 3);
  EXPECT_EQ(Call("n1", uint64_t{5}, true, false, 1).message(),
            "[request id: n1] sequence batching control 'CORRID' data-type is 'UINT64', but "
            "model 'm' expects 'BYTES'");
}

TEST_F(SequenceBatcherTest, CancelledQueuedRequestEndsItsSequence) {
  Build(AccumulatorConfig(2, true));
  gate_.Close();
  Send("a1", uint64_t{1}, true, false, 1);
  log_.AwaitBatches(1);
  auto token = std::make_shared<core::CancellationToken>();
  SequenceRequestSpec spec;
  spec.id = "a2";
  spec.sequence_id = uint64_t{1};
  spec.x = 2;
  spec.cancellation = token;
  batcher_->Submit(MakeSequenceRequest(spec, answers_, io_));
  Send("a3", uint64_t{1}, false, false, 3);
  token->Cancel();
  EXPECT_TRUE(timer_.ScheduledFor(batcher_.get()).has_value());
  batcher_->OnDeadline();
  answers_.AwaitCount(2);
  EXPECT_EQ(answers_.StatusOf("a2")->code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(answers_.StatusOf("a3")->code(), absl::StatusCode::kCancelled);
  gate_.Open();
  answers_.AwaitCount(3);
  EXPECT_TRUE(answers_.StatusOf("a1")->ok());
  EXPECT_EQ(Call("a4", uint64_t{1}, false, false, 1).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(stats_->Snapshot().queue_size, 0);
}

TEST_F(SequenceBatcherTest, FailQueuedAnswersEveryQueuedRequestOnce) {
  Build(AccumulatorConfig(1, true));
  gate_.Close();
  Send("a1", uint64_t{1}, true, false, 1);
  log_.AwaitBatches(1);
  Send("a2", uint64_t{1}, false, false, 2);  // queued in the slot
  Send("b1", uint64_t{2}, true, false, 3);   // the backlog
  Send("b2", uint64_t{2}, false, true, 4);
  batcher_->FailQueued(absl::UnavailableError("drain time ran out"));
  answers_.AwaitCount(3);
  for (const char* id : {"a2", "b1", "b2"}) {
    EXPECT_EQ(answers_.StatusOf(id)->message(), "drain time ran out") << id;
  }
  gate_.Open();
  answers_.AwaitCount(4);
  EXPECT_TRUE(answers_.StatusOf("a1")->ok());
  batcher_->Stop();
  for (const char* id : {"a1", "a2", "b1", "b2"}) EXPECT_EQ(answers_.CountOf(id), 1u) << id;
  EXPECT_EQ(stats_->Snapshot().queue_size, 0);
}

TEST_F(SequenceBatcherTest, BackloggedSequencePastItsTimeoutIsRejected) {
  Build(AccumulatorConfig(1, true));
  ASSERT_TRUE(Call("a1", uint64_t{1}, true, false, 1).ok());  // holds the only slot
  SequenceRequestSpec spec;
  spec.id = "b1";
  spec.sequence_id = uint64_t{2};
  spec.start = true;
  spec.end = true;
  spec.timeout_micros = 500;
  batcher_->Submit(MakeSequenceRequest(spec, answers_, io_));
  clock_.Advance(std::chrono::microseconds(499));
  batcher_->OnDeadline();
  EXPECT_EQ(answers_.CountOf("b1"), 0u);
  clock_.Advance(std::chrono::microseconds(1));
  batcher_->OnDeadline();
  answers_.AwaitCount(2);
  EXPECT_EQ(*answers_.StatusOf("b1"),
            absl::UnavailableError("timeout of the corresponding sequence has been expired"));
  EXPECT_EQ(stats_->Snapshot().queue_size, 0);
}

TEST_F(SequenceBatcherTest, ClientDeadlineOfAQueuedRequestEndsItsSequence) {
  Build(AccumulatorConfig(2, true));
  gate_.Close();
  Send("a1", uint64_t{1}, true, false, 1);
  log_.AwaitBatches(1);
  SequenceRequestSpec spec;
  spec.id = "a2";
  spec.sequence_id = uint64_t{1};
  spec.deadline_nanos = clock_.NowNanos() + 1000;
  batcher_->Submit(MakeSequenceRequest(spec, answers_, io_));
  EXPECT_EQ(timer_.ScheduledFor(batcher_.get()), spec.deadline_nanos);
  clock_.Advance(std::chrono::microseconds(1));
  batcher_->OnDeadline();
  answers_.AwaitCount(1);
  EXPECT_EQ(answers_.StatusOf("a2")->code(), absl::StatusCode::kDeadlineExceeded);
  gate_.Open();
  answers_.AwaitCount(2);
  EXPECT_EQ(Call("a3", uint64_t{1}, false, false, 1).code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(SequenceBatcherTest, StopRunsTheBacklogAndAnswersEverything) {
  Build(AccumulatorConfig(1, true));
  ASSERT_TRUE(Call("a1", uint64_t{1}, true, false, 1).ok());  // holds the only slot
  Send("b1", uint64_t{2}, true, false, 3);
  Send("b2", uint64_t{2}, false, false, 4);
  batcher_->Stop();  // releases the idle slot; the backlog runs
  EXPECT_EQ(answers_.count(), 3u);
  EXPECT_EQ(answers_.YOf("b2"), 7);
  Send("c1", uint64_t{3}, true, false, 1);
  answers_.AwaitCount(4);
  EXPECT_EQ(answers_.StatusOf("c1")->code(), absl::StatusCode::kUnavailable);
}

TEST_F(SequenceBatcherTest, OldestBatchesTheOldestRequestsOfDistinctSequences) {
  SequenceConfig config = AccumulatorConfig(2, true);
  config.strategy = SequenceStrategy::kOldest;
  config.max_candidate_sequences = 4;
  Build(std::move(config));
  gate_.Close();
  Send("a1", uint64_t{1}, true, false, 1);
  log_.AwaitBatches(1);
  Send("a2", uint64_t{1}, false, false, 2);
  Send("b1", uint64_t{2}, true, false, 10);
  Send("a3", uint64_t{1}, false, true, 3);
  Send("c1", uint64_t{3}, true, false, 20);
  gate_.Open();
  answers_.AwaitCount(5);
  const auto batches = log_.batches();
  ASSERT_EQ(batches.size(), 3u);
  ASSERT_EQ(batches[1].second.size(), 2u);
  EXPECT_EQ(batches[1].second[0].id, "a2");  // the oldest ready request
  EXPECT_EQ(batches[1].second[1].id, "b1");  // then the oldest of another sequence
  ASSERT_EQ(batches[2].second.size(), 2u);
  EXPECT_EQ(batches[2].second[0].id, "a3");
  EXPECT_EQ(batches[2].second[1].id, "c1");
  EXPECT_EQ(answers_.YOf("a3"), 6);
  EXPECT_EQ(answers_.YOf("c1"), 20);
  EXPECT_EQ(batches[1].second[1].corrid, 2u);
}

TEST_F(SequenceBatcherTest, DirectWaitsForMinimumSlotUtilization) {
  SequenceConfig config = AccumulatorConfig(4, true);
  config.max_queue_delay_micros = 1000;
  config.minimum_slot_utilization = 0.5;
  Build(std::move(config));
  Send("a1", uint64_t{1}, true, false, 1);
  EXPECT_TRUE(timer_.ScheduledFor(batcher_.get()).has_value());
  EXPECT_EQ(log_.batches().size(), 0u);     // 1 of 4 slots ready: waits
  Send("b1", uint64_t{2}, true, false, 2);  // 2 of 4: enough
  answers_.AwaitCount(2);
  ASSERT_EQ(log_.batches().size(), 1u);
  EXPECT_EQ(log_.batches()[0].second.size(), 2u);
  Send("a2", uint64_t{1}, false, false, 1);
  EXPECT_EQ(log_.batches().size(), 1u);
  clock_.Advance(std::chrono::microseconds(1000));
  batcher_->OnDeadline();  // the delay passed: goes alone
  answers_.AwaitCount(3);
  EXPECT_EQ(answers_.YOf("a2"), 2);
}

TEST_F(SequenceBatcherTest, StatisticsCountRequestsNotPadding) {
  Build(AccumulatorConfig(4, true));
  gate_.Close();
  Send("a1", uint64_t{1}, true, false, 1);
  log_.AwaitBatches(1);
  Send("b1", uint64_t{2}, true, true, 1);
  gate_.Open();
  answers_.AwaitCount(2);
  batcher_->Stop();
  const auto snapshot = stats_->Snapshot();
  EXPECT_EQ(snapshot.inference_count, 2u);
  EXPECT_EQ(snapshot.execution_count, 2u);
  EXPECT_EQ(snapshot.queue_size, 0);
  EXPECT_EQ(snapshot.in_flight, 0);
}

}  // namespace
}  // namespace inferd::scheduling

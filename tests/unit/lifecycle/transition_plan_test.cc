// SPDX-License-Identifier: Apache-2.0
// PlanTransition: which versions load, stay and leave for each kind of
// change a repository can see.
#include "lifecycle/transition_plan.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace inferd::lifecycle {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(TransitionPlanTest, FirstLoadLoadsEverySelectedVersion) {
  const TransitionPlan plan = PlanTransition({1, 2}, {{1, 11}, {2, 22}}, {}, false);
  EXPECT_THAT(plan.load, ElementsAre(1, 2));
  EXPECT_THAT(plan.keep, IsEmpty());
  EXPECT_THAT(plan.retire, IsEmpty());
  EXPECT_FALSE(plan.empty());
}

TEST(TransitionPlanTest, FirstLoadIgnoresModelChanged) {
  const TransitionPlan plan = PlanTransition({3}, {{3, 33}}, {}, true);
  EXPECT_THAT(plan.load, ElementsAre(3));
  EXPECT_THAT(plan.retire, IsEmpty());
}

TEST(TransitionPlanTest, UnchangedVersionsAreKept) {
  const TransitionPlan plan = PlanTransition({1, 2}, {{1, 11}, {2, 22}}, {{1, 11}, {2, 22}}, false);
  EXPECT_THAT(plan.load, IsEmpty());
  EXPECT_THAT(plan.keep, ElementsAre(1, 2));
  EXPECT_THAT(plan.retire, IsEmpty());
  EXPECT_TRUE(plan.empty());
}

TEST(TransitionPlanTest, ChangedFingerprintLoadsAndRetiresTheSameVersion) {
  const TransitionPlan plan = PlanTransition({1, 2}, {{1, 11}, {2, 99}}, {{1, 11}, {2, 22}}, false);
  EXPECT_THAT(plan.load, ElementsAre(2));
  EXPECT_THAT(plan.keep, ElementsAre(1));
  EXPECT_THAT(plan.retire, ElementsAre(2));
}

TEST(TransitionPlanTest, NewVersionUnderLatestOneReplacesTheOld) {
  // The folder of version 1 is still on disk, but latest-1 now selects 2.
  const TransitionPlan plan = PlanTransition({2}, {{1, 11}, {2, 22}}, {{1, 11}}, false);
  EXPECT_THAT(plan.load, ElementsAre(2));
  EXPECT_THAT(plan.keep, IsEmpty());
  EXPECT_THAT(plan.retire, ElementsAre(1));
}

TEST(TransitionPlanTest, ModelChangedReloadsEveryVersion) {
  const TransitionPlan plan = PlanTransition({1, 2}, {{1, 11}, {2, 22}}, {{1, 11}, {2, 22}}, true);
  EXPECT_THAT(plan.load, ElementsAre(1, 2));
  EXPECT_THAT(plan.keep, IsEmpty());
  EXPECT_THAT(plan.retire, ElementsAre(1, 2));
}

TEST(TransitionPlanTest, VersionRemovedFromDiskIsRetired) {
  // Policy "all": version 2's folder was deleted, so it is neither selected
  // nor on disk; version 1 stays as it is.
  const TransitionPlan plan = PlanTransition({1}, {{1, 11}}, {{1, 11}, {2, 22}}, false);
  EXPECT_THAT(plan.load, IsEmpty());
  EXPECT_THAT(plan.keep, ElementsAre(1));
  EXPECT_THAT(plan.retire, ElementsAre(2));
}

TEST(TransitionPlanTest, NewestVersionRemovedFallsBackToThePrevious) {
  // Latest-1 served 3; its folder is gone, so 2 is selected again.
  const TransitionPlan plan = PlanTransition({2}, {{1, 11}, {2, 22}}, {{3, 33}}, false);
  EXPECT_THAT(plan.load, ElementsAre(2));
  EXPECT_THAT(plan.retire, ElementsAre(3));
}

TEST(TransitionPlanTest, SelectedButMissingFingerprintReloads) {
  // A selected version without a fingerprint cannot be proven unchanged.
  const TransitionPlan plan = PlanTransition({1}, {}, {{1, 11}}, false);
  EXPECT_THAT(plan.load, ElementsAre(1));
  EXPECT_THAT(plan.retire, ElementsAre(1));
}

TEST(TransitionPlanTest, SpecificPolicyPicks) {
  // Policy "specific { versions: [1, 3] }" over folders 1..4, serving 1 and 2.
  const TransitionPlan plan =
      PlanTransition({1, 3}, {{1, 11}, {2, 22}, {3, 33}, {4, 44}}, {{1, 11}, {2, 22}}, false);
  EXPECT_THAT(plan.load, ElementsAre(3));
  EXPECT_THAT(plan.keep, ElementsAre(1));
  EXPECT_THAT(plan.retire, ElementsAre(2));
}

TEST(TransitionPlanTest, RetireIsAscendingAcrossBothReasons) {
  // 3 leaves because it changed, 1 and 5 because they are no longer selected.
  const TransitionPlan plan =
      PlanTransition({2, 3}, {{2, 22}, {3, 99}}, {{1, 11}, {2, 22}, {3, 33}, {5, 55}}, false);
  EXPECT_THAT(plan.load, ElementsAre(3));
  EXPECT_THAT(plan.keep, ElementsAre(2));
  EXPECT_THAT(plan.retire, ElementsAre(1, 3, 5));
}

TEST(TransitionPlanTest, NothingSelectedRetiresEverything) {
  const TransitionPlan plan = PlanTransition({}, {}, {{1, 11}, {2, 22}}, false);
  EXPECT_THAT(plan.load, IsEmpty());
  EXPECT_THAT(plan.keep, IsEmpty());
  EXPECT_THAT(plan.retire, ElementsAre(1, 2));
}

}  // namespace
}  // namespace inferd::lifecycle

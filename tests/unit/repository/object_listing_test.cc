// SPDX-License-Identifier: Apache-2.0
// How a listing is cut into parts, and the stability rule: nothing is copied
// or removed until two listings agree on it.
#include "repository/object_listing.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace inferd::repository {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

const UnitKey kFiles{"simple", ""};
const UnitKey kV1{"simple", "1"};
const UnitKey kV2{"simple", "2"};

std::vector<ObjectInfo> Repo(std::string v2_etag = "") {
  std::vector<ObjectInfo> objects = {{"simple/config.pbtxt", 10, "c"},
                                     {"simple/labels.txt", 3, "l"},
                                     {"simple/1/model.onnx", 100, "m1"}};
  if (!v2_etag.empty()) objects.push_back({"simple/2/model.onnx", 100, v2_etag});
  return objects;
}

std::map<UnitKey, uint64_t> Cache(const UnitListing& listing) {
  std::map<UnitKey, uint64_t> cached;
  for (const auto& [key, unit] : listing) cached[key] = unit.digest;
  return cached;
}

TEST(ObjectListingTest, GroupsModelFilesAndVersions) {
  const UnitListing units = GroupListing({{"simple/config.pbtxt", 1, "a"},
                                          {"simple/configs/h.pbtxt", 1, "b"},
                                          {"simple/1/model.onnx", 1, "c"},
                                          {"simple/1/sub/data.bin", 1, "d"},
                                          {"simple/01/x", 1, "e"},  // not a version folder
                                          {"simple/1/", 0, "f"},    // a folder marker
                                          {"README.md", 1, "g"},    // not in a model
                                          {"evil/../../x", 1, "h"},
                                          {"evil//x", 1, "i"},
                                          {"py/1/model.py", 1, "j"}});
  ASSERT_EQ(units.size(), 3u);
  EXPECT_THAT(units.at(kFiles).objects, ElementsAre(ObjectInfo{"simple/01/x", 1, "e"},
                                                    ObjectInfo{"simple/config.pbtxt", 1, "a"},
                                                    ObjectInfo{"simple/configs/h.pbtxt", 1, "b"}));
  EXPECT_THAT(units.at(kV1).objects, ElementsAre(ObjectInfo{"simple/1/model.onnx", 1, "c"},
                                                 ObjectInfo{"simple/1/sub/data.bin", 1, "d"}));
  EXPECT_EQ(units.count(UnitKey{"py", "1"}), 1u);
}

TEST(ObjectListingTest, DigestFollowsKeySizeAndEtag) {
  const auto base = GroupListing(Repo("x"));
  EXPECT_EQ(base.at(kV2).digest, GroupListing(Repo("x")).at(kV2).digest);
  EXPECT_NE(base.at(kV2).digest, GroupListing(Repo("y")).at(kV2).digest);
  auto resized = Repo("x");
  resized.back().size = 101;
  EXPECT_NE(base.at(kV2).digest, GroupListing(resized).at(kV2).digest);
  EXPECT_EQ(base.at(kV1).digest, GroupListing(Repo("y")).at(kV1).digest);
}

TEST(ObjectListingTest, CurrentModeTakesEverything) {
  const auto now = GroupListing(Repo("x"));
  const SyncPlan plan = PlanSync(now, nullptr, {});
  EXPECT_THAT(plan.fetch, ElementsAre(kFiles, kV1, kV2));
  EXPECT_THAT(plan.remove, IsEmpty());
  EXPECT_THAT(PlanSync(now, nullptr, Cache(now)).fetch, IsEmpty());
}

TEST(ObjectListingTest, ANewVersionWaitsForASecondListing) {
  const auto before = GroupListing(Repo());
  const auto cached = Cache(before);
  const auto appeared = GroupListing(Repo("x"));
  // First seen: not yet.
  EXPECT_THAT(PlanSync(appeared, &before, cached).fetch, IsEmpty());
  // Changed again meanwhile (still uploading): not yet.
  const auto changed = GroupListing(Repo("y"));
  EXPECT_THAT(PlanSync(changed, &appeared, cached).fetch, IsEmpty());
  // The same twice: copied, alone.
  EXPECT_THAT(PlanSync(changed, &changed, cached).fetch, ElementsAre(kV2));
}

TEST(ObjectListingTest, AVersionBeingUploadedFileByFileIsNotCopiedHalfDone) {
  auto objects = Repo();
  const auto cached = Cache(GroupListing(objects));
  UnitListing previous = GroupListing(objects);
  for (const char* file : {"simple/2/a.bin", "simple/2/b.bin", "simple/2/model.onnx"}) {
    objects.push_back({file, 5, file});
    const auto now = GroupListing(objects);
    EXPECT_THAT(PlanSync(now, &previous, cached).fetch, IsEmpty()) << file;
    previous = now;
  }
  EXPECT_THAT(PlanSync(previous, &previous, cached).fetch, ElementsAre(kV2));
}

TEST(ObjectListingTest, ANewModelAppearsOnlyWhenAllOfItIsStable) {
  const UnitListing empty;
  auto objects = Repo();
  const auto first = GroupListing(objects);
  EXPECT_THAT(PlanSync(first, &empty, {}).fetch, IsEmpty());
  // config and version 1 are stable now, but version 2 just appeared.
  objects.push_back({"simple/2/model.onnx", 100, "m2"});
  const auto second = GroupListing(objects);
  EXPECT_THAT(PlanSync(second, &first, {}).fetch, IsEmpty());
  EXPECT_THAT(PlanSync(second, &second, {}).fetch, ElementsAre(kFiles, kV1, kV2));
}

TEST(ObjectListingTest, RemovalWaitsForASecondListingToo) {
  const auto with_v2 = GroupListing(Repo("x"));
  const auto cached = Cache(with_v2);
  const auto without_v2 = GroupListing(Repo());
  EXPECT_THAT(PlanSync(without_v2, &with_v2, cached).remove, IsEmpty());
  EXPECT_THAT(PlanSync(without_v2, &without_v2, cached).remove, ElementsAre(kV2));
  // Without a previous listing (start-up, explicit load) at once.
  EXPECT_THAT(PlanSync(without_v2, nullptr, cached).remove, ElementsAre(kV2));
  // The whole model gone.
  const UnitListing nothing;
  EXPECT_THAT(PlanSync(nothing, &nothing, cached).remove, ElementsAre(kFiles, kV1, kV2));
}

TEST(ObjectListingTest, AChangedConfigIsCopiedWithoutTheVersions) {
  const auto before = GroupListing(Repo("x"));
  auto objects = Repo("x");
  objects[0].etag = "c2";
  const auto after = GroupListing(objects);
  EXPECT_THAT(PlanSync(after, &after, Cache(before)).fetch, ElementsAre(kFiles));
}

}  // namespace
}  // namespace inferd::repository

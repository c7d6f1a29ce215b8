// SPDX-License-Identifier: Apache-2.0
#include "server/response_cache.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "server/response_cache_key.h"

namespace inferd {
namespace {

using core::DataType;
using core::Tensor;

Tensor MakeTensor(std::string name, std::string bytes, DataType type = DataType::kUint8,
                  core::Shape shape = {}) {
  if (shape.empty()) shape = {static_cast<int64_t>(bytes.size())};
  return Tensor{std::move(name), type, std::move(shape), core::Buffer::Own(std::move(bytes))};
}

struct Request {
  std::string model = "m";
  int64_t version = 1;
  uint64_t generation = 7;
  std::vector<Tensor> inputs = {MakeTensor("IN", "abcd")};
  std::vector<std::string> outputs = {"OUT"};
  core::Parameters parameters;

  ResponseCacheKey Key() const {
    return ResponseCacheKey::Make(model, version, generation, inputs, outputs, parameters);
  }
};

std::vector<Tensor> Outputs(std::string bytes) { return {MakeTensor("OUT", std::move(bytes))}; }

std::string Bytes(const std::vector<Tensor>& outputs) {
  std::string all;
  for (const Tensor& t : outputs) all += std::string(t.data.view());
  return all;
}

TEST(ResponseCacheKeyTest, EqualRequestsHaveEqualKeys) {
  Request a, b;
  EXPECT_EQ(a.Key().digest(), b.Key().digest());
  EXPECT_TRUE(a.Key().Matches(b.Key().Flatten()));
  EXPECT_EQ(a.Key().Flatten().size(), a.Key().material_size());
}

TEST(ResponseCacheKeyTest, InputOrderDoesNotMatter) {
  Request a, b;
  a.inputs = {MakeTensor("A", "1"), MakeTensor("B", "2")};
  b.inputs = {MakeTensor("B", "2"), MakeTensor("A", "1")};
  EXPECT_EQ(a.Key().digest(), b.Key().digest());
  EXPECT_TRUE(a.Key().Matches(b.Key().Flatten()));
}

// Each field of the request changes the key, digest and material both.
TEST(ResponseCacheKeyTest, EveryFieldChangesTheKey) {
  const Request base;
  std::vector<std::pair<std::string, Request>> variants;
  auto add = [&](std::string what, auto change) {
    Request r = base;
    change(r);
    variants.emplace_back(std::move(what), std::move(r));
  };
  add("model", [](Request& r) { r.model = "n"; });
  add("version", [](Request& r) { r.version = 2; });
  add("generation", [](Request& r) { r.generation = 8; });
  add("input name", [](Request& r) { r.inputs[0].name = "IN2"; });
  add("input datatype", [](Request& r) { r.inputs[0].datatype = DataType::kInt8; });
  add("input shape", [](Request& r) { r.inputs[0].shape = {2, 2}; });
  add("input bytes", [](Request& r) { r.inputs[0] = MakeTensor("IN", "abce"); });
  add("input length",
      [](Request& r) { r.inputs[0] = MakeTensor("IN", "abc", DataType::kUint8, {4}); });
  add("another input", [](Request& r) { r.inputs.push_back(MakeTensor("X", "")); });
  add("output name", [](Request& r) { r.outputs = {"OUT2"}; });
  add("output order", [](Request& r) { r.outputs = {"OUT", "OUT2"}; });
  add("parameter", [](Request& r) { r.parameters["scale"] = int64_t{2}; });
  add("parameter type", [](Request& r) { r.parameters["scale"] = uint64_t{2}; });
  const ResponseCacheKey key = base.Key();
  const ResponseCacheKey model_shapes = ResponseCacheKey::Make(
      base.model, base.version, base.generation, base.inputs, base.outputs, base.parameters, true);
  EXPECT_NE(model_shapes.digest(), key.digest());
  EXPECT_FALSE(key.Matches(model_shapes.Flatten()));
  for (const auto& [what, request] : variants) {
    const ResponseCacheKey other = request.Key();
    EXPECT_NE(other.digest(), key.digest()) << what;
    EXPECT_FALSE(key.Matches(other.Flatten())) << what;
  }
  Request reordered = base;
  reordered.outputs = {"OUT2", "OUT"};
  Request ordered = base;
  ordered.outputs = {"OUT", "OUT2"};
  EXPECT_NE(reordered.Key().digest(), ordered.Key().digest());
}

TEST(ResponseCacheKeyTest, SchedulingParametersStayOutOfTheKey) {
  Request a, b;
  b.parameters["priority"] = uint64_t{3};
  b.parameters["timeout"] = int64_t{100};
  b.parameters["binary_data_output"] = true;
  EXPECT_EQ(a.Key().digest(), b.Key().digest());
  EXPECT_TRUE(a.Key().Matches(b.Key().Flatten()));
}

TEST(ResponseCacheTest, MissThenHit) {
  ResponseCache cache(1 << 20);
  Request r;
  EXPECT_FALSE(cache.Lookup(r.Key()));
  ASSERT_TRUE(cache.Insert(r.Key(), Outputs("answer")));
  auto hit = cache.Lookup(r.Key());
  ASSERT_TRUE(hit);
  ASSERT_EQ(hit->size(), 1u);
  EXPECT_EQ((*hit)[0].name, "OUT");
  EXPECT_EQ((*hit)[0].datatype, DataType::kUint8);
  EXPECT_EQ((*hit)[0].shape, (core::Shape{6}));
  EXPECT_EQ(Bytes(*hit), "answer");
  Request other;
  other.inputs = {MakeTensor("IN", "zzzz")};
  EXPECT_FALSE(cache.Lookup(other.Key()));
  const ResponseCacheStats stats = cache.Stats();
  EXPECT_EQ(stats.hits, 1u);
  EXPECT_EQ(stats.misses, 2u);
  EXPECT_EQ(stats.insertions, 1u);
  EXPECT_EQ(stats.entries, 1u);
  EXPECT_EQ(stats.bytes, ResponseCache::Charge(r.Key(), Outputs("answer")));
}

TEST(ResponseCacheTest, StoresACopyOfTheOutputs) {
  ResponseCache cache(1 << 20);
  Request r;
  std::string bytes = "answer";
  std::vector<Tensor> outputs = {
      Tensor{"OUT", DataType::kUint8, {6}, core::Buffer{bytes.data(), bytes.size(), nullptr}}};
  ASSERT_TRUE(cache.Insert(r.Key(), outputs));
  bytes = "XXXXXX";  // the backend's memory is reused after the response left
  EXPECT_EQ(Bytes(*cache.Lookup(r.Key())), "answer");
}

TEST(ResponseCacheTest, OutputsOutliveEviction) {
  Request a;
  const size_t charge = ResponseCache::Charge(a.Key(), Outputs("first"));
  ResponseCache cache(charge);
  ASSERT_TRUE(cache.Insert(a.Key(), Outputs("first")));
  auto hit = cache.Lookup(a.Key());
  Request b;
  b.inputs = {MakeTensor("IN", "efgh")};
  ASSERT_TRUE(cache.Insert(b.Key(), Outputs("other")));  // evicts a
  EXPECT_FALSE(cache.Lookup(a.Key()));
  EXPECT_EQ(Bytes(*hit), "first");  // still readable: the buffer owns the entry
}

Request Numbered(int i) {
  Request r;
  r.inputs = {MakeTensor("IN", std::string(4, static_cast<char>('a' + i)))};
  return r;
}

TEST(ResponseCacheTest, EvictsByBytesLeastRecentlyUsedFirst) {
  const size_t charge = ResponseCache::Charge(Numbered(0).Key(), Outputs("0123"));
  ResponseCache cache(3 * charge);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(cache.Insert(Numbered(i).Key(), Outputs("0123")));
  EXPECT_EQ(cache.Stats().entries, 3u);
  ASSERT_TRUE(cache.Lookup(Numbered(0).Key()));  // 0 is now the most recent; 1 the least
  ASSERT_TRUE(cache.Insert(Numbered(3).Key(), Outputs("0123")));
  EXPECT_FALSE(cache.Lookup(Numbered(1).Key()));
  EXPECT_TRUE(cache.Lookup(Numbered(0).Key()));
  EXPECT_TRUE(cache.Lookup(Numbered(2).Key()));
  EXPECT_TRUE(cache.Lookup(Numbered(3).Key()));
  const ResponseCacheStats stats = cache.Stats();
  EXPECT_EQ(stats.evictions, 1u);
  EXPECT_EQ(stats.entries, 3u);
  EXPECT_LE(stats.bytes, stats.capacity_bytes);
  // A larger entry evicts as many as it needs.
  ASSERT_TRUE(cache.Insert(Numbered(4).Key(), Outputs(std::string(charge + 10, 'x'))));
  EXPECT_EQ(cache.Stats().entries, 1u);
  EXPECT_EQ(cache.Stats().evictions, 4u);
}

TEST(ResponseCacheTest, OversizeEntriesAreNotStoredAndEvictNothing) {
  Request r;
  const size_t charge = ResponseCache::Charge(r.Key(), Outputs("small"));
  ResponseCache cache(charge);
  ASSERT_TRUE(cache.Insert(r.Key(), Outputs("small")));
  Request big = Numbered(5);
  EXPECT_FALSE(cache.Insert(big.Key(), Outputs(std::string(charge, 'x'))));
  EXPECT_FALSE(cache.Lookup(big.Key()));
  EXPECT_TRUE(cache.Lookup(r.Key()));
  EXPECT_EQ(cache.Stats().oversize, 1u);
  EXPECT_EQ(cache.Stats().evictions, 0u);
}

TEST(ResponseCacheTest, ANewGenerationNeverSeesTheOldAnswer) {
  ResponseCache cache(1 << 20);
  Request old_load;
  ASSERT_TRUE(cache.Insert(old_load.Key(), Outputs("v1 answer")));
  Request reload = old_load;
  reload.generation = old_load.generation + 1;  // the same version, loaded again
  EXPECT_FALSE(cache.Lookup(reload.Key()));
  Request next_version = old_load;
  next_version.version = 2;
  EXPECT_FALSE(cache.Lookup(next_version.Key()));
}

TEST(ResponseCacheTest, ReinsertReplacesTheEntry) {
  ResponseCache cache(1 << 20);
  Request r;
  ASSERT_TRUE(cache.Insert(r.Key(), Outputs("one")));
  ASSERT_TRUE(cache.Insert(r.Key(), Outputs("two")));
  EXPECT_EQ(Bytes(*cache.Lookup(r.Key())), "two");
  EXPECT_EQ(cache.Stats().entries, 1u);
  EXPECT_EQ(cache.Stats().bytes, ResponseCache::Charge(r.Key(), Outputs("two")));
}

TEST(ResponseCacheTest, ConcurrentInsertsAndLookups) {
  constexpr int kThreads = 8;
  constexpr int kKeys = 64;
  constexpr int kRounds = 400;
  const size_t charge = ResponseCache::Charge(Numbered(0).Key(), Outputs("answer-00"));
  ResponseCache cache(kKeys / 2 * charge);  // half fit: evictions happen all along
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < kRounds; ++round) {
        const int i = (round * 7 + t * 13) % kKeys;
        Request r;
        r.inputs = {MakeTensor("IN", "key-" + std::to_string(i))};
        const std::string answer = "answer-" + std::to_string(100 + i).substr(1);
        if (auto hit = cache.Lookup(r.Key())) {
          if (Bytes(*hit) != answer) wrong.fetch_add(1);
        } else {
          cache.Insert(r.Key(), Outputs(answer));
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
  const ResponseCacheStats stats = cache.Stats();
  EXPECT_EQ(stats.hits + stats.misses, static_cast<uint64_t>(kThreads * kRounds));
  EXPECT_LE(stats.bytes, stats.capacity_bytes);
  EXPECT_GT(stats.hits, 0u);
  EXPECT_GT(stats.evictions, 0u);
}

TEST(ParseCacheConfigTest, LocalSize) {
  EXPECT_EQ(*ParseCacheConfig({"local,size=1048576"}), 1048576u);
  EXPECT_EQ(*ParseCacheConfig({"local,size=1", "local,size=2"}), 2u);
}

TEST(ParseCacheConfigTest, Errors) {
  for (const char* bad : {"local", "local,size=", "local,size=0", "local,size=-1", "local,size=1k",
                          "redis,host=localhost", "local,capacity=1", ",size=1"}) {
    auto parsed = ParseCacheConfig({bad});
    EXPECT_TRUE(absl::IsInvalidArgument(parsed.status())) << bad;
    EXPECT_THAT(std::string(parsed.status().message()), testing::HasSubstr("--cache-config"))
        << bad;
  }
  EXPECT_FALSE(ParseCacheConfig({}).ok());
}

}  // namespace
}  // namespace inferd

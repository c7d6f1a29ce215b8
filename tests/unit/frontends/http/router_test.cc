// SPDX-License-Identifier: Apache-2.0
#include "frontends/http/router.h"

#include "gtest/gtest.h"

namespace inferd::frontends::http {
namespace {

using Outcome = RouteResult::Outcome;

RouteResult Get(std::string_view target) { return MatchRoute(HttpMethod::kGet, target); }
RouteResult Post(std::string_view target) { return MatchRoute(HttpMethod::kPost, target); }

TEST(RouterTest, ServerEndpoints) {
  EXPECT_EQ(Get("/v2").match.route, Route::kServerMetadata);
  EXPECT_EQ(Get("/v2").outcome, Outcome::kMatched);
  EXPECT_EQ(Get("/v2/health/live").match.route, Route::kHealthLive);
  EXPECT_EQ(Get("/v2/health/ready").match.route, Route::kHealthReady);
  EXPECT_EQ(Get("/v2/health/ready?x=1").match.route, Route::kHealthReady);
}

TEST(RouterTest, UnknownPathsAreNotFound) {
  for (const char* target : {"/",
                             "/v1",
                             "/v2/",
                             "/v2/health",
                             "/v2/health/live/",
                             "/v2//health/live",
                             "/v2/models",
                             "/v2/models/",
                             "/v2/models/m/",
                             "/v2/models/m/bogus",
                             "/v2/models/m/versions",
                             "/v2/models/m/versions/x",
                             "/v2/models/m/versions/-1/infer",
                             "/v2/models/m/versions/1.0",
                             "/v2/models/m/versions/1/trace/setting",
                             "v2",
                             "",
                             "/v2/repository",
                             "/v2/repository/models/m/bogus",
                             "/v2/systemsharedmemory/register"}) {
    EXPECT_EQ(Get(target).outcome, Outcome::kNotFound) << target;
    EXPECT_EQ(Post(target).outcome, Outcome::kNotFound) << target;
  }
}

TEST(RouterTest, WrongMethodIsNotAllowed) {
  EXPECT_EQ(Post("/v2").outcome, Outcome::kMethodNotAllowed);
  EXPECT_EQ(Post("/v2/health/live").outcome, Outcome::kMethodNotAllowed);
  EXPECT_EQ(Get("/v2/models/m/infer").outcome, Outcome::kMethodNotAllowed);
  EXPECT_EQ(Post("/v2/models/m/config").outcome, Outcome::kMethodNotAllowed);
  EXPECT_EQ(Get("/v2/repository/index").outcome, Outcome::kMethodNotAllowed);
  EXPECT_EQ(MatchRoute(HttpMethod::kOther, "/v2/trace/setting").outcome,
            Outcome::kMethodNotAllowed);
  EXPECT_EQ(MatchRoute(HttpMethod::kOther, "/v2/models/m").outcome, Outcome::kMethodNotAllowed);
}

TEST(RouterTest, ModelRoutes) {
  RouteResult r = Get("/v2/models/simple");
  EXPECT_EQ(r.match.route, Route::kModelMetadata);
  EXPECT_EQ(r.match.model, "simple");
  EXPECT_EQ(r.match.version, "");
  r = Get("/v2/models/simple/versions/12");
  EXPECT_EQ(r.match.route, Route::kModelMetadata);
  EXPECT_EQ(r.match.version, "12");
  r = Post("/v2/models/simple/versions/3/infer");
  EXPECT_EQ(r.outcome, Outcome::kMatched);
  EXPECT_EQ(r.match.route, Route::kModelInfer);
  EXPECT_EQ(r.match.model, "simple");
  EXPECT_EQ(r.match.version, "3");
  EXPECT_EQ(Get("/v2/models/simple/ready").match.route, Route::kModelReady);
  EXPECT_EQ(Get("/v2/models/simple/versions/1/config").match.route, Route::kModelConfig);
  EXPECT_EQ(Get("/v2/models/simple/stats").match.route, Route::kModelStats);
  EXPECT_EQ(Post("/v2/models/simple/generate").match.route, Route::kModelGenerate);
  EXPECT_EQ(Post("/v2/models/simple/generate_stream").match.route, Route::kModelGenerateStream);
  EXPECT_EQ(Post("/v2/models/simple/trace/setting").match.route, Route::kModelTraceSetting);
}

TEST(RouterTest, AllModelStatsBeforeModelPattern) {
  RouteResult r = Get("/v2/models/stats");
  EXPECT_EQ(r.match.route, Route::kModelStats);
  EXPECT_EQ(r.match.model, "");
  // A model actually named "stats" is still reachable with more segments.
  r = Get("/v2/models/stats/ready");
  EXPECT_EQ(r.match.route, Route::kModelReady);
  EXPECT_EQ(r.match.model, "stats");
}

TEST(RouterTest, ModelNamesArePercentDecoded) {
  RouteResult r = Get("/v2/models/my%20model/ready");
  EXPECT_EQ(r.match.model, "my model");
  EXPECT_EQ(Get("/v2/models/a%2Fb").outcome, Outcome::kNotFound);  // encoded slash
  EXPECT_EQ(Get("/v2/models/a%2").outcome, Outcome::kNotFound);
  EXPECT_EQ(Get("/v2/models/a%zz").outcome, Outcome::kNotFound);
}

TEST(RouterTest, RepositoryRoutes) {
  RouteResult r = Post("/v2/repository/index");
  EXPECT_EQ(r.match.route, Route::kRepositoryIndex);
  EXPECT_EQ(r.match.repository, "");
  r = Post("/v2/repository/main/index");
  EXPECT_EQ(r.match.route, Route::kRepositoryIndex);
  EXPECT_EQ(r.match.repository, "main");
  r = Post("/v2/repository/models/simple/load");
  EXPECT_EQ(r.match.route, Route::kRepositoryLoad);
  EXPECT_EQ(r.match.model, "simple");
  r = Post("/v2/repository/main/models/simple/unload");
  EXPECT_EQ(r.match.route, Route::kRepositoryUnload);
  EXPECT_EQ(r.match.repository, "main");
}

TEST(RouterTest, SharedMemoryAndSettings) {
  EXPECT_EQ(Get("/v2/systemsharedmemory/status").match.route, Route::kSystemSharedMemoryStatus);
  RouteResult r = Post("/v2/cudasharedmemory/region/r0/register");
  EXPECT_EQ(r.match.route, Route::kCudaSharedMemoryRegister);
  EXPECT_EQ(r.match.region, "r0");
  EXPECT_EQ(Post("/v2/systemsharedmemory/unregister").match.route,
            Route::kSystemSharedMemoryUnregister);
  EXPECT_EQ(Get("/v2/trace/setting").match.route, Route::kTraceSetting);
  EXPECT_EQ(Post("/v2/logging").match.route, Route::kLogging);
}

}  // namespace
}  // namespace inferd::frontends::http

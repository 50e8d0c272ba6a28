// tests/sweep/sweep_ranks_test.cpp — the chunk exchange of a sweep (sweep/sweep_ranks.hpp) in one
// process: ranges that cover the sweep once, outputs written in case order whatever order and
// thread they come back from, and a failure or a writer's error that stops the hand-out. Several
// ranks under mpirun: sweep_command_test.cpp.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "fivsim/sweep/sweep_ranks.hpp"

namespace {

using fivsim::sweep::ChunkOutput;
using fivsim::sweep::ChunkRange;
using fivsim::sweep::ColumnBlock;
using fivsim::sweep::make_writer_exchange;
using fivsim::sweep::RankFailure;
using fivsim::sweep::Ranks;
using nlohmann::json;

// this process as no launcher's, even where ctest itself runs inside one (an srun step, say)
Ranks single_process() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) ::unsetenv(name);
  return Ranks();
}

// a chunk's output whose one column names its cases
ChunkOutput output_of(ChunkRange r) {
  ChunkOutput out;
  out.first = r.first;
  out.n = r.n;
  out.cases.resize(r.n, 1);
  for (long i = 0; i < r.n; ++i) out.cases.column(0)[i] = static_cast<double>(r.first + i);
  return out;
}

// the cases a block names, one line each
std::string lines_of(const ColumnBlock& b) {
  std::string rows;
  for (long i = 0; i < b.rows; ++i) rows += std::to_string(static_cast<long>(b.column(0)[i])) + "\n";
  return rows;
}

std::string rows_of(long first, long end) {
  std::string rows;
  for (long i = first; i < end; ++i) rows += std::to_string(i) + "\n";
  return rows;
}

TEST(Ranks, AProcessNoLauncherStartedIsRankZeroOfOne) {
  Ranks ranks = single_process();
  EXPECT_EQ(ranks.rank(), 0);
  EXPECT_EQ(ranks.size(), 1);
  EXPECT_EQ(ranks.local_rank(), 0);
  EXPECT_EQ(ranks.node_ranks_with("GPU-0123"), 1);
  char name[256] = {};
  ASSERT_EQ(::gethostname(name, sizeof(name) - 1), 0);
  EXPECT_EQ(ranks.host(), std::string(name));
}

// [start, end) in ranges of `chunk` cases, in order, the last one short; a resume starts mid-way
TEST(ChunkExchange, RangesCoverTheSweepOnceInOrder) {
  Ranks ranks = single_process();
  for (const auto& [start, end, chunk] : {std::tuple{0L, 10L, 3L}, std::tuple{7L, 12L, 5L}, std::tuple{4L, 9L, 0L}}) {
    auto exchange = make_writer_exchange(ranks, start, end, chunk, json::object(), [](ChunkOutput&&) {});
    long at = start;
    while (const auto r = exchange->next()) {
      EXPECT_EQ(r->first, at);
      EXPECT_EQ(r->n, std::min(std::max(chunk, 1L), end - at));
      at += r->n;
    }
    EXPECT_EQ(at, end);
    EXPECT_FALSE(exchange->next());
    exchange->finish();
  }
}

// outputs handed back out of order wait for the ones before them
TEST(ChunkExchange, OutputsAreWrittenInCaseOrder) {
  Ranks ranks = single_process();
  std::string written;
  std::vector<long> firsts;
  auto exchange = make_writer_exchange(ranks, 0, 9, 3, json{{"host", "here"}}, [&](ChunkOutput&& o) {
    written += lines_of(o.cases);
    firsts.push_back(o.first);
  });
  const ChunkRange a = *exchange->next(), b = *exchange->next(), c = *exchange->next();
  exchange->done(output_of(c));
  exchange->done(output_of(b));
  EXPECT_TRUE(written.empty());
  exchange->done(output_of(a));
  EXPECT_EQ(written, rows_of(0, 9));
  EXPECT_EQ(firsts, (std::vector<long>{0, 3, 6}));
  exchange->finish();
  ASSERT_EQ(exchange->about_ranks().size(), 1u);
  EXPECT_EQ(exchange->about_ranks()[0]["host"], "here");
}

// on rank 0 the main thread (its own chunks) and the MPI service thread (the other ranks') both
// hand outputs back; here four plain threads take ranges and return them after random delays,
// and every case is written once, in order
TEST(ChunkExchange, ThreadsReturningOutputsInAnyOrderWriteEachCaseOnceInOrder) {
  Ranks ranks = single_process();
  std::string written;
  auto exchange =
      make_writer_exchange(ranks, 5, 505, 7, json::object(), [&](ChunkOutput&& o) { written += lines_of(o.cases); });
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < 4; ++t)
    workers.emplace_back([&exchange, t] {
      std::mt19937 gen(t);
      std::uniform_int_distribution<int> pause_us(0, 300);
      while (const auto r = exchange->next()) {
        std::this_thread::sleep_for(std::chrono::microseconds(pause_us(gen)));
        exchange->done(output_of(*r));
      }
    });
  for (std::thread& w : workers) w.join();
  exchange->finish();
  EXPECT_EQ(written, rows_of(5, 505));
}

// a failure stops the hand-out; finish() reports the first one with its exit code
TEST(ChunkExchange, AFailureStopsTheHandOutAndIsReportedOnce) {
  Ranks ranks = single_process();
  auto exchange = make_writer_exchange(ranks, 0, 100, 10, json::object(), [](ChunkOutput&&) {});
  ASSERT_TRUE(exchange->next());
  exchange->fail(2, "/model/Fn: must be positive");
  exchange->fail(1, "a later failure");
  EXPECT_FALSE(exchange->next());
  try {
    exchange->finish();
    ADD_FAILURE() << "finish() did not report the failure";
  } catch (const RankFailure& f) {
    EXPECT_EQ(f.exit_code, 2);
    EXPECT_STREQ(f.what(), "/model/Fn: must be positive");
  }
}

// the writer's error (a full disk, say) stops the hand-out, no output after it is written, and
// finish() rethrows it
TEST(ChunkExchange, AWritersErrorStopsTheSweepAndIsRethrown) {
  Ranks ranks = single_process();
  std::vector<long> written;
  auto exchange = make_writer_exchange(ranks, 0, 40, 10, json::object(), [&](ChunkOutput&& o) {
    if (o.first == 10) throw std::runtime_error("No space left on device");
    written.push_back(o.first);
  });
  const ChunkRange a = *exchange->next(), b = *exchange->next(), c = *exchange->next();
  exchange->done(output_of(a));
  exchange->done(output_of(b));
  EXPECT_FALSE(exchange->next());
  exchange->done(output_of(c));
  EXPECT_EQ(written, std::vector<long>{0});
  EXPECT_THROW(
      {
        try {
          exchange->finish();
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "No space left on device");
          throw;
        }
      },
      std::runtime_error);
}

}  // namespace

// tests/fuzz/results_fuzz.cpp — libFuzzer harness over the files fivsim reads back from its own
// results, where a user's editor, a damaged disk or an attacker may have changed them: a shard's
// summary.json and cases.csv as `fivsim merge` joins them (app/merge.hpp, beside a valid first
// shard), and a resumed sweep's manifest.json as `fivsim sweep --resume` loads it
// (sweep/sweep_journal.hpp). The first byte picks the file, the rest is its text. Bad input may end
// only in an InputError (exit 2) or a std::runtime_error naming a file (exit 1); any other
// exception (a json::exception escaping, bad_alloc), a crash or a sanitizer report is a finding.
// Initialisation runs two shards and an unfinished sweep in-process and writes each file as it is
// into the first corpus folder given, so that the search starts from files that pass every check.
//
// build: CC=clang CXX=clang++ cmake -S . -B build-fuzz -DFIVSIM_FUZZ=ON -DFIVSIM_CUDA=OFF
// run:   build-fuzz/fivsim_fuzz_results -max_total_time=60 build-fuzz/corpus_results
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "fivsim/app/merge.hpp"
#include "fivsim/app/sweep.hpp"
#include "fivsim/sweep/result_table.hpp"
#include "fivsim/sweep/sweep_journal.hpp"
#include "fivsim/core/input_error.hpp"
#include "fivsim/io/json_reader.hpp"
#include "fivsim/io/scenario.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Fixture {
  fs::path dir;                             // the fuzzer's own temporary folder
  std::map<std::string, std::string> kept;  // a file's pristine bytes, by its name in `dir`
  json identity;                            // the unfinished sweep's, as the runner makes it
};
Fixture g;

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_all(const fs::path& p, std::string_view text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

// the small load sweep the shards and the unfinished sweep run (40 cases, 2 s each)
json small_sweep() {
  json doc = fivsim::load_json_file(FIVSIM_SOURCE_DIR "/scenarios/chain2_load_sweep.json");
  doc["integrator"]["t_end"] = 2;
  doc["analysis"]["t_transient"] = 1;
  doc["sweep"]["parameters"][0]["linspace"] = {1, 30, 40};
  return doc;
}

void sweep(const std::string& out, const std::string& shard) {
  fivsim::SweepRequest r;
  r.document = small_sweep();
  r.out = out;
  r.device = "cpu";
  r.threads = 1;
  r.shard = shard;
  fivsim::Ranks ranks;
  (void)fivsim::run_sweep_request(r, ranks);
}

const char* const kFiles[] = {"shard1/summary.json", "shard1/cases.csv", "journal/manifest.json"};

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  char tmpl[] = "/tmp/fivsim_fuzz_results_XXXXXX";
  g.dir = ::mkdtemp(tmpl);
  sweep((g.dir / "shard0").string(), "0/2");
  sweep((g.dir / "shard1").string(), "1/2");
  // a manifest as an unfinished sweep leaves it: the finished shard's files are its chunk's bytes
  fs::create_directories(g.dir / "journal");
  for (const char* f : {"cases.csv", "points.csv"}) fs::copy_file(g.dir / "shard0" / f, g.dir / "journal" / f);
  g.identity = {{"scenario", small_sweep()}, {"first_case", 0}, {"end_case", 40}};
  {
    fivsim::sweep::SweepJournal j(g.dir / "journal", g.identity);
    j.set_headers({{"cases.csv", 0}, {"points.csv", 0}});
    fivsim::sweep::JournalChunk c;
    c.first = 0;
    c.n = 20;
    for (const char* f : {"cases.csv", "points.csv"}) {
      const std::string bytes = read_all(g.dir / "journal" / f);
      fivsim::sweep::ByteChecksum sum;
      sum.update(bytes.data(), bytes.size());
      c.files[f] = {static_cast<long>(bytes.size()), sum.value()};
    }
    j.record(c);
  }
  for (const char* f : kFiles) g.kept[f] = read_all(g.dir / f);
  // the seeds: each file as it is, behind the byte that picks it
  for (int i = 1; i < *argc; ++i) {
    const fs::path corpus = (*argv)[i];
    if ((*argv)[i][0] == '-' || !fs::is_directory(corpus)) continue;
    for (unsigned k = 0; k < 3; ++k)
      write_all(corpus / ("seed_" + std::to_string(k)), std::string(1, char(k)) + g.kept[kFiles[k]]);
    break;
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const unsigned which = data[0] % 3;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  for (const char* f : kFiles) write_all(g.dir / f, g.kept[f]);
  write_all(g.dir / kFiles[which], text);
  try {
    if (which < 2) {
      const fs::path out = g.dir / "merged";
      (void)fivsim::merge_shards({(g.dir / "shard0").string(), (g.dir / "shard1").string()}, out.string());
      fs::remove_all(out);
    } else {
      fivsim::sweep::SweepJournal j(g.dir / "journal", g.identity);
      (void)j.load(0, 40, {{"cases.csv", ""}});
    }
  } catch (const fivsim::InputError&) {
  } catch (const std::runtime_error&) {
  }
  return 0;
}

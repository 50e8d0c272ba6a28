// src/app/merge.cpp — `fivsim merge DIR…` and fivsim.merge (app/merge.hpp): joins the output folders of `fivsim sweep
// --shard i/N` (i = 0 … N−1) into the files one run of the whole sweep writes. The shards are
// contiguous ranges of case indices, so cases.csv and points.csv are the shards' rows in shard
// order under one header — byte for byte what a single run writes —, results.h5 holds their rows
// in the same order (sweep/results_h5.hpp), and the decimated trajectories are copied. summary.json adds up the counts
// (cases, case-steps, classes, status, PINN trainings), keeps each shard's throughput and device under "shards", and
// takes as wall_s the slowest shard's (the shards ran side by side).
#include "fivsim/app/merge.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "fivsim/sweep/basins.hpp"
#include "fivsim/sweep/results_h5.hpp"
#include "fivsim/sweep/sweep_counts.hpp"
#include "fivsim/sweep/sweep_journal.hpp"
#include "fivsim/core/input_error.hpp"
#include "fivsim/core/input_file.hpp"
#include "fivsim/core/output_domain.hpp"
#include "fivsim/core/output_file.hpp"
#include "fivsim/core/unique_fd.hpp"
#include "fivsim/io/json_reader.hpp"
#include "fivsim/io/output.hpp"

namespace fivsim {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Shard {
  fs::path dir;
  json summary;
  int index = 0;
};

[[noreturn]] void refuse(const std::string& what) { throw InputError::message(what); }

// the counts a merge reads as integers are integers in a summary.json fivsim wrote; a number of
// another kind there (a float such as 1e23 would overflow the conversion) is a damaged file
void check_counts(const json& summary, const fs::path& file) {
  const auto check = [&](const json& value, const std::string& name, long long most = 1LL << 53) {
    if (!value.is_number_integer() || value.get<long long>() < 0 || value.get<long long>() > most)
      refuse(file.string() + " is damaged: \"" + name + "\" is " + value.dump(-1).substr(0, 40) +
             ", not a count; run that shard again (or restore its folder)");
  };
  const auto each = [&](const json& obj, const std::string& at, std::initializer_list<const char*> keys,
                        long long most = 1LL << 53) {
    if (!obj.is_object()) return;
    for (const char* key : keys)
      if (obj.contains(key)) check(obj.at(key), at + key, most);
  };
  each(summary, "", {"cases", "chunks", "memory_halvings", "n_dof", "n_contacts"});
  if (summary.contains("shard")) each(summary.at("shard"), "shard/", {"index", "count"}, 1 << 30);
  if (summary.contains("pinn"))
    each(summary.at("pinn"), "pinn/", {"dynamic_iterations", "lcp_iterations", "unconverged_steps"});
  for (const char* table : {"classes", "status"})
    if (summary.contains(table) && summary.at(table).is_object())
      for (const auto& [name, count] : summary.at(table).items()) check(count, std::string(table) + "/" + name);
  if (summary.contains("checksums") && summary.at("checksums").is_object())
    for (const auto& [name, entry] : summary.at("checksums").items()) each(entry, "checksums/" + name + "/", {"lines"});
}

// a shard's file open for reading: a regular file in the shard's folder, never a link, device or
// pipe (which would be read through or waited on)
UniqueFd open_shard_file(const fs::path& file) {
  if (safety_disabled("strict")) return UniqueFd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  UniqueFd fd(::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  struct stat st {};
  if (fd.get() >= 0 && ::fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode)) return fd;
  refuse(file.string() +
         " is not a regular file (a link, folder, device or pipe): a shard holds the files its sweep wrote");
}

// the shard's file appended to the descriptor `out` (the merged file `out_path`) from byte `from`
void copy_shard_file(const fs::path& file, long from, int out, const fs::path& out_path) {
  const UniqueFd fd = open_shard_file(file);
  if (::lseek(fd.get(), from, SEEK_SET) != from) refuse(file.string() + ": cannot be read");
  std::vector<char> buf(1 << 20);
  for (;;) {
    const ssize_t got = ::read(fd.get(), buf.data(), buf.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) refuse(file.string() + ": cannot be read (" + std::strerror(errno) + ")");
    if (got == 0) break;
    write_all(out, std::string_view(buf.data(), static_cast<std::size_t>(got)), out_path);
  }
}

// the first line of a shard's CSV file, its newline included
std::string header_line(const fs::path& file) {
  std::string head(1 << 16, '\0');
  const ssize_t got = ::pread(open_shard_file(file).get(), head.data(), head.size(), 0);
  const std::size_t end = got > 0 ? head.find('\n') : std::string::npos;
  if (end == std::string::npos || end >= static_cast<std::size_t>(got)) refuse(file.string() + " has no header line");
  return head.substr(0, end + 1);
}

// a shard's files as its sweep finished them: each file its summary.json's "checksums" names has
// that length and checksum, every file merge reads is among them, and cases.csv has a row per case
// the summary counts
void verify_files(const Shard& s) {
  const fs::path summary = s.dir / "summary.json";
  if (safety_disabled("strict") && !s.summary.contains("checksums")) return;
  if (!s.summary.contains("checksums"))
    refuse(summary.string() + " has no \"checksums\": its files cannot be verified; run shard " +
           std::to_string(s.index) + " again with this fivsim");
  const json& checks = s.summary.at("checksums");
  if (!checks.is_object()) refuse(summary.string() + ": \"checksums\" is not an object");
  for (const auto& [name, check] : checks.items()) {
    if (name != "cases.csv" && name != "points.csv" && name != "results.h5")
      refuse(summary.string() + ": \"checksums\" names " + printable(name) + ", not a file of a sweep");
    const std::string why = sweep::file_check_mismatch(s.dir / name, check);
    if (!why.empty())
      refuse((s.dir / name).string() + " is damaged: " + why + "; run shard " + std::to_string(s.index) +
             " again (or restore its folder)");
  }
  for (const char* name : {"cases.csv", "points.csv", "results.h5"}) {
    std::error_code ec;
    if (fs::symlink_status(s.dir / name, ec).type() != fs::file_type::not_found && !checks.contains(name))
      refuse((s.dir / name).string() + " is not among the files " + summary.string() +
             " checksums: it cannot be verified; run shard " + std::to_string(s.index) + " again");
  }
  if (!checks.contains("cases.csv")) return;
  const fs::path cases = s.dir / "cases.csv";
  const long rows = checks.at("cases.csv").value("lines", 0L) - 1, expected = s.summary.value("cases", -1L);
  if (rows != expected)
    refuse(cases.string() + " is damaged: " + std::to_string(std::max(rows, 0L)) +
           " rows where its summary.json counts " + std::to_string(expected) + " cases; run shard " +
           std::to_string(s.index) + " again (or restore its folder)");
}

// the shards in index order, each checked against the first: same sweep, every index once
std::vector<Shard> read_shards(const std::vector<std::string>& dirs) {
  std::vector<Shard> shards;
  for (const auto& d : dirs) {
    Shard s;
    s.dir = d;
    const fs::path file = s.dir / "summary.json";
    // strictly, as every file fivsim reads: a regular file, its size capped, its nesting limited
    if (safety_disabled("strict")) {
      std::ifstream in(file);
      s.summary = json::parse(in);
    } else {
      s.summary = parse_json_text(read_input_file(file.string(), kMaxJsonFileBytes, "a JSON"), file.string());
    }
    if (!s.summary.contains("shard"))
      refuse(d + " is not a shard (its summary.json has no \"shard\" block: it was not run with --shard i/N)");
    check_counts(s.summary, file);
    s.index = s.summary.at("shard").at("index").get<int>();
    shards.push_back(std::move(s));
  }
  std::sort(shards.begin(), shards.end(), [](const Shard& a, const Shard& b) { return a.index < b.index; });
  const json& first = shards.front().summary;
  const int count = first.at("shard").at("count").get<int>();
  for (std::size_t k = 0; k < shards.size(); ++k) {
    const json& s = shards[k].summary;
    const std::string dir = shards[k].dir.string();
    if (s.at("shard").at("count").get<int>() != count)
      refuse(dir + " is shard " + std::to_string(shards[k].index) + " of " + s.at("shard").at("count").dump() + ", " +
             shards.front().dir.string() + " one of " + std::to_string(count));
    if (s.at("scenario") != first.at("scenario"))
      refuse(dir + " ran another scenario than " + shards.front().dir.string() + " (its summary.json's \"scenario\")");
    for (const char* key : {"precision", "method"})
      if (s.at(key) != first.at(key))
        refuse(dir + " ran " + std::string(key) + " " + s.at(key).dump() + ", " + shards.front().dir.string() + " " +
               first.at(key).dump());
    if (k > 0 && shards[k].index == shards[k - 1].index)
      refuse(dir + " and " + shards[k - 1].dir.string() + " are both shard " + std::to_string(shards[k].index));
  }
  for (int i = 0; i < count; ++i)
    if (i >= static_cast<int>(shards.size()) || shards[static_cast<std::size_t>(i)].index != i)
      refuse("shard " + std::to_string(i) + " of " + std::to_string(count) + " is missing");
  for (const Shard& s : shards) verify_files(s);
  return shards;
}

// the shards' files `name` as one: the first one's header, then every shard's rows
void join_csv(const std::vector<Shard>& shards, const std::string& name, const fs::path& out) {
  const UniqueFd fd(create_new_file(out));
  const std::string header = header_line(shards[0].dir / name);
  for (std::size_t k = 0; k < shards.size(); ++k) {
    const fs::path file = shards[k].dir / name;
    if (k > 0 && header_line(file) != header)
      refuse(file.string() + " has another header than " + (shards[0].dir / name).string());
    copy_shard_file(file, k == 0 ? 0 : static_cast<long>(header.size()), fd.get(), out);
  }
  if (::fsync(fd.get()) != 0) throw std::runtime_error(cannot_write(out, errno));
}

// a shard's trajectories, regular files each, copied into `to`
void copy_trajectories(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  if (fs::symlink_status(from, ec).type() != fs::file_type::directory)
    refuse(from.string() + " is not a folder (a link or a file): a shard holds the trajectories its sweep wrote");
  make_output_folder(to);
  for (const auto& f : fs::directory_iterator(from)) {
    const fs::path target = to / f.path().filename();
    const UniqueFd fd(create_new_file(target));
    copy_shard_file(f.path(), 0, fd.get(), target);
  }
}

}  // namespace

MergeOutcome merge_shards(const std::vector<std::string>& shard_dirs, const std::string& out) {
  if (shard_dirs.empty()) refuse("no shard folders to merge");
  try {
    const std::vector<Shard> shards = read_shards(shard_dirs);
    const json& first = shards.front().summary;
    const std::string name = first.at("name").get<std::string>();
    if (!is_file_name(name))
      refuse((shards.front().dir / "summary.json").string() + ": \"name\" '" + name +
             "' is not a file name (letters, digits, _ - .); name the merged folder with --out");
    std::vector<fs::path> inputs;
    for (const Shard& s : shards) inputs.push_back(s.dir);
    StagedDirectory dir(output_folder(out, name), std::move(inputs));
    if (fs::exists(shards.front().dir / "cases.csv")) join_csv(shards, "cases.csv", dir.file("cases.csv"));
    if (fs::exists(shards.front().dir / "points.csv")) join_csv(shards, "points.csv", dir.file("points.csv"));
    for (const Shard& s : shards)
      if (fs::exists(fs::symlink_status(s.dir / "trajectories")))
        copy_trajectories(s.dir / "trajectories", dir.file("trajectories"));

    json summary = first;
    summary.erase("shard");
    summary.erase("resumed");  // a shard's own story, not the merged run's
    // the counts add up; the shards ran side by side: wall_s is the slowest one's and the stepping
    // rates add up (as the ranks' of one run do)
    sweep::SweepTotals totals;
    json per_shard = json::array();
    for (const Shard& s : shards) {
      const json& j = s.summary;
      const sweep::SweepTotals t = sweep::read_totals(j);
      totals.cases += t.cases;
      totals.chunks += t.chunks;
      totals.counts.add(t.counts);
      totals.wall_s = std::max(totals.wall_s, t.wall_s);
      totals.write_s += t.write_s;
      totals.case_steps_per_s += t.case_steps_per_s;
      // every process of every shard, tagged with its shard
      for (json r : t.ranks) {
        r["shard"] = s.index;
        totals.ranks.push_back(r);
      }
      per_shard.push_back({{"index", s.index},
                           {"folder", s.dir.string()},
                           {"cases", j.at("cases")},
                           {"first_case", j.at("shard").at("first_case")},
                           {"backend", j.at("backend")},
                           {"device", j.at("device")},
                           {"wall_s", j.at("wall_s")},
                           {"case_steps_per_s", j.at("case_steps_per_s")}});
    }
    sweep::write_totals(totals, summary);
    summary["shards"] = per_shard;
    if (fs::exists(shards.front().dir / "results.h5")) {
      std::vector<fs::path> parts;
      for (const Shard& s : shards) {
        if (!fs::exists(s.dir / "results.h5"))
          refuse(s.dir.string() + " has no results.h5, " + shards.front().dir.string() + " has");
        parts.push_back(s.dir / "results.h5");
      }
      sweep::join_results_h5(parts, dir.file("results.h5"), summary, summary.value("n_contacts", 0));
    }
    // a sweep over initial conditions: its attractors and basins, from every shard's cases
    std::vector<std::string> paths;
    for (const json& p : summary["scenario"]["sweep"].value("parameters", json::array()))
      paths.push_back(p.value("path", std::string()));
    if (summary.contains("classification"))
      for (const std::string& file : sweep::write_basins(dir.path(), paths, summary.value("n_dof", 0), summary))
        summary["files"].push_back(file);
    // the merged files' checksums: the merged folder is verifiable as a shard is
    json checks = json::object();
    for (const char* file : {"cases.csv", "points.csv", "results.h5"})
      if (fs::exists(dir.file(file))) checks[file] = sweep::file_check(dir.file(file));
    summary["checksums"] = checks;
    write_json_file(dir.file("summary.json"), summary);
    dir.commit();
    return MergeOutcome{summary, dir.final_path(), shards.size()};
  } catch (const json::exception& e) {
    refuse(std::string("a shard's summary.json lacks what `fivsim sweep --shard` writes: ") + e.what());
  }
}

}  // namespace fivsim

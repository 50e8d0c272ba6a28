// src/io/output.cpp — staged output folders, CSV and JSON writers (docs/DESIGN.md §5).
#include "fivsim/io/output.hpp"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "fivsim/core/input_error.hpp"
#include "fivsim/integrate/pinn_step.hpp"

namespace fivsim {

nlohmann::json pinn_totals_json(const PinnTotals& p) {
  return {{"dynamic_iterations", p.iterations},
          {"lcp_iterations", p.lcp_iterations},
          {"max_dynamic_loss", p.max_loss},
          {"unconverged_steps", p.unconverged}};
}

namespace fs = std::filesystem;

fs::path folder_named(fs::path out_dir) {
  while (out_dir.has_relative_path() && out_dir.filename().empty()) out_dir = out_dir.parent_path();
  return out_dir;
}

namespace {

// a path's named components ("/a/b/" → a, b), to tell whether one path lies inside another
std::vector<std::string> components(const fs::path& p) {
  std::vector<std::string> parts;
  for (const fs::path& c : p)
    if (!c.empty() && c != "/" && c != ".") parts.push_back(c.string());
  return parts;
}

// `inner` is `outer` or lies inside it (both absolute and normal)
bool lies_within(const fs::path& inner, const fs::path& outer) {
  const std::vector<std::string> a = components(inner), b = components(outer);
  return a.size() >= b.size() && std::equal(b.begin(), b.end(), a.begin());
}

// absolute, links in the folders above resolved, the last component kept as named (a link there
// is judged as a link, not as what it points to)
fs::path resolved_above(const fs::path& p, const fs::path& cwd) {
  const fs::path abs = (p.is_absolute() ? p : cwd / p).lexically_normal();
  const fs::path name = folder_named(abs).filename();
  if (name.empty() || name == "..") return abs;
  std::error_code ec;
  const fs::path parent = fs::weakly_canonical(folder_named(abs).parent_path(), ec);
  return ec ? folder_named(abs) : parent / name;
}

fs::path resolved(const fs::path& p, const fs::path& cwd) {
  std::error_code ec;
  const fs::path abs = (p.is_absolute() ? p : cwd / p).lexically_normal();
  const fs::path c = fs::weakly_canonical(abs, ec);
  return ec ? abs : c;
}

const char* kOnlyOwnFolders =
    "fivsim replaces only a results folder it wrote (one holding .fivsim-output) or an empty folder";

// "" when the existing `dir` is a folder fivsim may replace: one holding the marker, or empty
std::string folder_refusal(const fs::path& dir) {
  std::error_code ec;
  if (fs::symlink_status(dir / kOutputMarker, ec).type() == fs::file_type::regular) return "";
  fs::directory_iterator it(dir, ec);
  if (ec) return "cannot be read (" + ec.message() + "); " + kOnlyOwnFolders;
  if (it == fs::directory_iterator()) return "";
  return std::string("is a folder fivsim did not write (no .fivsim-output in it); ") + kOnlyOwnFolders +
         ": name a new folder, or remove this one yourself";
}

// "" when `dir` may be replaced by a results folder as it is now: absent, an empty folder or
// fivsim's, and reachable through folders
std::string existing_refusal(const fs::path& dir) {
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(dir, ec);
  switch (st.type()) {
    case fs::file_type::not_found: {
      // where it would be made: the nearest existing path above must be a folder
      for (fs::path up = dir.parent_path(); !up.empty(); up = up.parent_path()) {
        const fs::file_status s = fs::status(up, ec);
        if (s.type() == fs::file_type::not_found) {
          if (up == up.parent_path()) break;
          continue;
        }
        if (s.type() != fs::file_type::directory) return "cannot be made: " + up.string() + " is not a folder";
        break;
      }
      return "";
    }
    case fs::file_type::directory:
      return folder_refusal(dir);
    case fs::file_type::symlink:
      return std::string("is a symbolic link; ") + kOnlyOwnFolders + ": name the folder itself or a new one";
    case fs::file_type::regular:
      return std::string("is a file, not a results folder; ") + kOnlyOwnFolders;
    case fs::file_type::none:
      return "cannot be looked at (" + ec.message() + ")";
    default:
      return std::string("is a special file (a device, pipe or socket); ") + kOnlyOwnFolders;
  }
}

}  // namespace

std::string output_refusal(const fs::path& out, const fs::path& cwd, const std::vector<fs::path>& inputs) {
  if (out.empty()) return "is empty: name the results folder";
  const fs::path named = folder_named(out);
  const fs::path at = resolved_above(named, cwd);
  if (components(at).empty()) return std::string("is the root folder /; ") + kOnlyOwnFolders;
  const fs::path here = resolved(cwd, cwd);
  if (lies_within(here, at))
    return (components(here) == components(at) ? std::string("is the current folder; ")
                                               : "holds the current folder " + here.string() + "; ") +
           kOnlyOwnFolders;
  for (const fs::path& input : inputs) {
    if (input.empty()) continue;
    const fs::path in = resolved(input, cwd);
    if (lies_within(in, at))
      return (components(in) == components(at) ? "is an input of this command (" + input.string() + ")"
                                               : "holds " + input.string() + ", an input of this command") +
             std::string("; name another folder");
  }
  return existing_refusal(named.is_absolute() ? named : cwd / named);
}

void require_safe_output(const fs::path& out, const std::vector<fs::path>& inputs) {
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  if (ec) cwd = "/";
  const std::string why = output_refusal(out, cwd, inputs);
  if (!why.empty()) throw InputError("--out", folder_named(out).string() + " " + why);
}

// --- cleanup on a signal: fixed slots a handler can read without allocating ---------------------

namespace {

constexpr int kCleanupSlots = 32;
constexpr std::size_t kCleanupPath = 4096;
// 0 free, 1 being written, 2 a staging folder to remove, 3 one to keep, 4 a lock file to unlink
struct CleanupSlot {
  std::atomic<int> state{0};
  char path[kCleanupPath] = {};
};
CleanupSlot g_cleanup[kCleanupSlots];
enum : int { kSlotFree = 0, kSlotWriting = 1, kSlotRemove = 2, kSlotKeep = 3, kSlotUnlink = 4 };

int claim_slot(const fs::path& p, int state) {
  std::error_code ec;
  const fs::path abs = fs::absolute(p, ec);
  const std::string text = (ec ? p : abs).string();
  if (text.size() >= kCleanupPath) return -1;
  for (int i = 0; i < kCleanupSlots; ++i) {
    int expected = kSlotFree;
    if (g_cleanup[i].state.compare_exchange_strong(expected, kSlotWriting)) {
      std::memcpy(g_cleanup[i].path, text.c_str(), text.size() + 1);
      g_cleanup[i].state.store(state);
      return i;
    }
  }
  return -1;
}

void release_slot(int slot) {
  if (slot >= 0) g_cleanup[slot].state.store(kSlotFree);
}

void set_slot(int slot, int state) {
  if (slot >= 0) g_cleanup[slot].state.store(state);
}

struct LinuxDirent64 {
  std::uint64_t d_ino;
  std::int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

// removes `name` under the folder `parent_fd` and everything in it, with system calls only (safe
// in a signal handler); links are removed, never followed
void remove_tree_at(int parent_fd, const char* name, int depth) {
  if (::unlinkat(parent_fd, name, 0) == 0 || (errno != EISDIR && errno != EPERM) || depth > 16) return;
  const int fd = ::openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  alignas(8) char buf[2048];
  // entries removed while listing may hide others: list again until only . and .. remain
  for (bool removed = true; removed;) {
    removed = false;
    if (::lseek(fd, 0, SEEK_SET) != 0) break;
    for (;;) {
      const long n = ::syscall(SYS_getdents64, fd, buf, sizeof buf);
      if (n <= 0) break;
      for (long off = 0; off < n;) {
        const auto* d = reinterpret_cast<const LinuxDirent64*>(buf + off);
        off += d->d_reclen;
        if (std::strcmp(d->d_name, ".") == 0 || std::strcmp(d->d_name, "..") == 0) continue;
        remove_tree_at(fd, d->d_name, depth + 1);
        removed = true;
      }
    }
  }
  ::close(fd);
  ::unlinkat(parent_fd, name, AT_REMOVEDIR);
}

extern "C" void remove_staging_and_end(int sig) {
  for (CleanupSlot& s : g_cleanup) {
    const int state = s.state.load();
    if (state == kSlotRemove) remove_tree_at(AT_FDCWD, s.path, 0);
    if (state == kSlotUnlink) ::unlink(s.path);
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

}  // namespace

void remove_staging_on_signals() {
  struct sigaction act {};
  act.sa_handler = remove_staging_and_end;
  sigemptyset(&act.sa_mask);
  // one cleanup at a time: the other signals wait until the first has ended the process
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&act.sa_mask, s);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    // a signal the caller ignores (nohup) stays ignored
    if (::sigaction(s, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    ::sigaction(s, &act, nullptr);
  }
}

// --- the lock -----------------------------------------------------------------------------------

fs::path OutputLock::path_for(const fs::path& out_dir) {
  fs::path lock = folder_named(out_dir);
  lock += ".lock";
  return lock;
}

namespace {
std::string this_host() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "this host";
  return name;
}

// a lock file fivsim wrote holds "pid N on HOST" (or nothing, while one is being made)
bool is_lock_note(const std::string& text) { return text.empty() || text.rfind("pid ", 0) == 0; }
}  // namespace

OutputLock::OutputLock(const fs::path& out_dir, const std::string& host) : path_(path_for(out_dir)) {
  if (path_.has_parent_path()) fs::create_directories(path_.parent_path());
  // a command that finishes removes its lock file: one opened just before that is locked in vain,
  // so the lock counts only if the file at the path is still the one locked
  for (int attempt = 0; attempt < 8; ++attempt) {
    // whether this process made the file: only then may it remove it unlocked
    bool created = true;
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd_ < 0 && errno == EEXIST) {
      created = false;
      fd_ = ::open(path_.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
      if (fd_ < 0 && errno == ENOENT) continue;  // removed by its command in between
      if (fd_ < 0 && errno == ELOOP)
        throw InputError("--out", path_.string() +
                                      " is a symbolic link, not fivsim's lock file; fivsim keeps a lock "
                                      "file beside its results folder: name another --out");
    }
    if (fd_ < 0) throw std::runtime_error("cannot create " + path_.string() + ": " + std::strerror(errno));
    if (!created) {
      // someone else's file of that name is neither truncated nor removed
      struct stat st {};
      char head[16] = {};
      const ssize_t got = ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode) ? ::pread(fd_, head, 4, 0) : -1;
      if (got < 0 || !is_lock_note(std::string(head, static_cast<std::size_t>(got)))) {
        ::close(fd_);
        fd_ = -1;
        throw InputError("--out", path_.string() +
                                      " exists and is not a fivsim lock file; fivsim keeps a lock file "
                                      "beside its results folder: name another --out, or move that file");
      }
    }
    struct flock whole {};
    whole.l_type = F_WRLCK;
    whole.l_whence = SEEK_SET;
    if (::fcntl(fd_, F_SETLK, &whole) != 0) {
      const int err = errno;
      // a file system without record locks (Lustre mounted without flock, NFS without its lock
      // daemon) runs the command unguarded rather than not at all. A file it did not make may be
      // the lock of a command on a host that has locks (NFS's are per client): that stays
      if (err == ENOLCK || err == ENOSYS || err == EOPNOTSUPP) {
        ::close(fd_);
        fd_ = -1;
        if (created) ::unlink(path_.c_str());
        unguarded_ = "cannot lock " + path_.string() + " (" + std::strerror(err) +
                     "): nothing keeps a second command out of " + folder_named(out_dir).string();
        return;
      }
      char holder[256] = {};
      ssize_t got = ::pread(fd_, holder, sizeof holder - 1, 0);
      // the holder writes its note just after it takes the lock: a refusal in between waits up to
      // 50 ms for it, so that the message names the command that holds the folder
      for (int k = 0; k < 20 && got <= 0 && (err == EACCES || err == EAGAIN); ++k) {
        ::usleep(2500);
        got = ::pread(fd_, holder, sizeof holder - 1, 0);
      }
      ::close(fd_);
      fd_ = -1;
      if (err != EACCES && err != EAGAIN)
        throw std::runtime_error("cannot lock " + path_.string() + ": " + std::strerror(err));
      throw std::runtime_error(folder_named(out_dir).string() + " is being written by another fivsim command (" +
                               (got > 0 ? std::string(holder) : std::string("its lock: ") + path_.string()) +
                               "); two commands cannot share an output folder. Give each sweep shard its own --out; "
                               "under Slurm, start the ranks as one MPI sweep (srun --mpi=pmix)");
    }
    struct stat locked {
    }, at_path{};
    if (::fstat(fd_, &locked) == 0 && ::stat(path_.c_str(), &at_path) == 0 && locked.st_dev == at_path.st_dev &&
        locked.st_ino == at_path.st_ino) {
      const std::string who = "pid " + std::to_string(::getpid()) + " on " + (host.empty() ? this_host() : host);
      // a note for the message of a refused command; the lock holds without it
      if (::ftruncate(fd_, 0) == 0) (void)!::pwrite(fd_, who.data(), who.size(), 0);
      slot_ = claim_slot(path_, kSlotUnlink);
      return;
    }
    ::close(fd_);
    fd_ = -1;
  }
  throw std::runtime_error("cannot lock " + path_.string() + ": the file keeps being replaced");
}

OutputLock::~OutputLock() {
  release_slot(slot_);
  if (fd_ < 0) return;
  // removed while still locked, so that no one locks a file that is on its way out unnoticed
  ::unlink(path_.c_str());
  ::close(fd_);
}

// --- staging and the swap -----------------------------------------------------------------------

namespace {
const fs::path& checked(const fs::path& dir, const std::vector<fs::path>& inputs) {
  require_safe_output(dir, inputs);
  return dir;
}

void write_marker(const fs::path& dir) {
  std::ofstream(dir / kOutputMarker) << "{\"written_by\": \"fivsim\"}\n";
  if (fs::symlink_status(dir / kOutputMarker).type() != fs::file_type::regular)
    throw std::runtime_error("cannot write " + (dir / kOutputMarker).string());
}

// makes the folder `dir` with its marker; false where something of that name exists
bool make_marked_folder(const fs::path& dir) {
  if (::mkdir(dir.c_str(), 0777) != 0) {
    if (errno == EEXIST) return false;
    throw std::runtime_error("cannot create " + dir.string() + ": " + std::strerror(errno));
  }
  write_marker(dir);
  return true;
}
}  // namespace

StagedDirectory::StagedDirectory(fs::path final_dir, std::vector<fs::path> inputs, const std::string& host)
    : final_(folder_named(std::move(final_dir))), inputs_(std::move(inputs)), lock_(checked(final_, inputs_), host) {
  if (final_.has_parent_path()) fs::create_directories(final_.parent_path());
  const std::string base = final_.string() + ".partial-" + std::to_string(::getpid());
  // a leftover of an earlier process with this pid is fivsim's to remove; anything else is passed by
  for (int n = 0;; ++n) {
    staging_ = n == 0 ? fs::path(base) : fs::path(base + "-" + std::to_string(n));
    if (make_marked_folder(staging_)) break;
    if (folder_refusal(staging_).empty() && fs::is_directory(fs::symlink_status(staging_))) {
      fs::remove_all(staging_);
      if (make_marked_folder(staging_)) break;
    }
    if (n > 100) throw std::runtime_error("cannot create a staging folder beside " + final_.string());
  }
  slot_ = claim_slot(staging_, kSlotRemove);
}

fs::path StagedDirectory::resumable_staging(fs::path final_dir) {
  final_dir = folder_named(std::move(final_dir));
  final_dir += ".partial";
  return final_dir;
}

StagedDirectory::StagedDirectory(fs::path final_dir, Resumable, std::vector<fs::path> inputs, const std::string& host)
    : final_(folder_named(std::move(final_dir))), inputs_(std::move(inputs)), lock_(checked(final_, inputs_), host) {
  staging_ = resumable_staging(final_);
  if (final_.has_parent_path()) fs::create_directories(final_.parent_path());
  if (!make_marked_folder(staging_)) {
    // an unfinished sweep's folder (its manifest, from before the marker too) or fivsim's own
    std::error_code ec;
    const bool folder = fs::symlink_status(staging_, ec).type() == fs::file_type::directory;
    if (!folder || (!folder_refusal(staging_).empty() && !fs::exists(staging_ / "manifest.json", ec)))
      throw InputError("--out", staging_.string() +
                                    " exists and was not written by fivsim (fivsim stages a sweep "
                                    "there); name another --out, or move it");
    keep_ = true;
  }
  slot_ = claim_slot(staging_, keep_ ? kSlotKeep : kSlotRemove);
}

void StagedDirectory::set_keep(bool keep) {
  keep_ = keep;
  set_slot(slot_, keep ? kSlotKeep : kSlotRemove);
}

void StagedDirectory::keep_on_failure() { set_keep(true); }

void StagedDirectory::restart() {
  fs::remove_all(staging_);
  if (!make_marked_folder(staging_)) throw std::runtime_error("cannot create " + staging_.string());
  set_keep(false);
}

StagedDirectory::~StagedDirectory() {
  release_slot(slot_);
  if (!committed_ && !keep_) {
    std::error_code ec;
    fs::remove_all(staging_, ec);
  }
}

void StagedDirectory::commit() {
  // the folder may have changed while the work ran: what is there now is replaced only if fivsim's
  const std::string why = existing_refusal(final_);
  if (!why.empty()) {
    set_keep(true);
    throw std::runtime_error(final_.string() + " " + why + " (it changed while fivsim ran); the results are in " +
                             staging_.string());
  }
  write_marker(staging_);
  if (::renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, final_.c_str(), RENAME_NOREPLACE) == 0) {
    committed_ = true;
  } else if (errno == EEXIST) {
    // an earlier results folder: the two swap places in one step, then the old one goes
    if (::renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, final_.c_str(), RENAME_EXCHANGE) == 0) {
      committed_ = true;
      std::error_code ec;
      fs::remove_all(staging_, ec);
    }
  }
  if (!committed_) {
    if (errno != EINVAL && errno != ENOSYS && errno != EEXIST)
      throw std::runtime_error("cannot move " + staging_.string() + " to " + final_.string() + ": " +
                               std::strerror(errno));
    // a file system without renameat2's flags: the old folder moved aside, the new one renamed in
    fs::path aside = final_;
    aside += ".old-" + std::to_string(::getpid());
    const bool had_old = fs::exists(fs::symlink_status(final_));
    if (had_old) fs::rename(final_, aside);
    fs::rename(staging_, final_);
    committed_ = true;
    if (had_old) fs::remove_all(aside);
  }
  release_slot(slot_);
  slot_ = -1;
}

namespace {
// shortest round-trip text of x into buf (32 bytes); returns its length
std::size_t double_to_text(double x, char* buf) {
  auto res = std::to_chars(buf, buf + 32, x);
  return static_cast<std::size_t>(res.ptr - buf);
}
}  // namespace

std::string format_double(double x) {
  char buf[32];
  return std::string(buf, double_to_text(x, buf));
}

void write_json_file(const std::filesystem::path& path, const nlohmann::json& j) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path.string());
  out << j.dump(2) << "\n";
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

CsvWriter::CsvWriter(const std::filesystem::path& path) {
  f_ = std::fopen(path.c_str(), "w");
  if (!f_) throw std::runtime_error("cannot write " + path.string());
}

CsvWriter::CsvWriter(const std::filesystem::path& path, long keep) {
  std::error_code ec;
  std::filesystem::resize_file(path, static_cast<std::uintmax_t>(keep), ec);
  if (ec) throw std::runtime_error("cannot continue " + path.string() + ": " + ec.message());
  f_ = std::fopen(path.c_str(), "ab");
  if (!f_) throw std::runtime_error("cannot write " + path.string());
}

void CsvRows::field(double x) {
  char buf[32];
  const std::size_t len = double_to_text(x, buf);
  if (!first_) text_.push_back(',');
  text_.append(buf, len);
  first_ = false;
}

void CsvRows::whole(double x) {
  if (!(std::abs(x) < 9e15) || x != std::floor(x)) return field(x);
  char buf[24];
  const int len = std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(x));
  if (!first_) text_.push_back(',');
  text_.append(buf, static_cast<std::size_t>(len));
  first_ = false;
}

void CsvRows::field(const char* s) {
  if (!first_) text_.push_back(',');
  text_.append(s);
  first_ = false;
}

void CsvRows::end_row() {
  text_.push_back('\n');
  first_ = true;
}

void CsvWriter::write_text(const std::string& text) {
  if (std::fwrite(text.data(), 1, text.size(), f_) != text.size())
    throw std::runtime_error("error while writing a CSV file");
}

void CsvWriter::flush_rows() {
  write_text(rows_.text());
  rows_.clear();
}

void CsvWriter::end_row() {
  rows_.end_row();
  // rows go to the FILE in blocks of about 64 KiB
  if (rows_.text().size() >= (1u << 16)) flush_rows();
}

void CsvWriter::append(const std::string& text) {
  flush_rows();
  write_text(text);
}

long CsvWriter::sync() {
  flush_rows();
  if (std::fflush(f_) != 0 || ::fsync(::fileno(f_)) != 0 || std::fseek(f_, 0, SEEK_END) != 0)
    throw std::runtime_error("error while writing a CSV file");
  return std::ftell(f_);
}

CsvWriter::~CsvWriter() {
  if (f_) {
    if (!rows_.text().empty()) std::fwrite(rows_.text().data(), 1, rows_.text().size(), f_);
    std::fclose(f_);
  }
}

void CsvWriter::close() {
  if (!f_) return;
  flush_rows();
  if (std::fclose(f_) != 0) {
    f_ = nullptr;
    throw std::runtime_error("error while closing a CSV file");
  }
  f_ = nullptr;
}

namespace {

// a text as one CSV field: in double quotes (inner quotes doubled, line breaks as spaces) where it
// holds a comma, a quote or a line break (an error message), else as it is
std::string csv_text(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string q = "\"";
  for (char ch : text) {
    if (ch == '"')
      q += "\"\"";
    else
      q += ch == '\n' || ch == '\r' ? ' ' : ch;
  }
  return q + "\"";
}

}  // namespace

void write_columns(const NamedColumns& table, const std::filesystem::path& file) {
  CsvWriter csv(file);
  for (const auto& name : table.names) csv.field(csv_text(name).c_str());
  csv.end_row();
  for (std::size_t i = 0; i < table.rows(); ++i) {
    for (std::size_t c = 0; c < table.names.size(); ++c) {
      if (table.text[c])
        csv.field(csv_text(table.texts[c][i]).c_str());
      else
        csv.field(table.columns[c][i]);
    }
    csv.end_row();
  }
  csv.close();
}

}  // namespace fivsim

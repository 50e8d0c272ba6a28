// src/sweep/sweep_ranks.cpp — the chunk exchange of a sweep on one process or under MPI
// (sweep/sweep_ranks.hpp). Rank 0 answers the other ranks from one service thread, the only thread that
// calls MPI while the sweep runs (MPI_THREAD_SERIALIZED); its main thread runs chunks like any rank.
#include "fivsim/sweep/sweep_ranks.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

#ifdef FIVSIM_HAVE_MPI
#include <mpi.h>
#endif

namespace fivsim::sweep {
namespace {

// the processes a launcher started, from its environment: OpenMPI's mpirun, or a PMI launcher
// (MPICH's mpiexec, Slurm's srun); 0 when none started this one. A Slurm batch script that runs
// fivsim without srun (shards, say) is no launch.
long launcher_size() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* v = std::getenv(name)) return std::max(1L, std::atol(v));
  return std::getenv("PMIX_RANK") ? 1 : 0;
}

#ifdef FIVSIM_HAVE_MPI
// message tags: a rank asks for a range, sends a chunk's output, or reports its failure; rank 0
// answers a request with a range (n = 0: stop)
enum Tag : int { kRequest = 11, kResult = 12, kFailed = 13, kAssign = 14 };

// a message is a list of byte strings: first their count and lengths, then each string in pieces
// of at most 1 GiB (MPI counts are int); messages between two ranks arrive in the order sent
constexpr std::size_t kPiece = std::size_t(1) << 30;

// a block's numbers as bytes, and back (ranks of one run share the machine's byte order)
std::string block_bytes(const ColumnBlock& b) {
  return std::string(reinterpret_cast<const char*>(b.values.data()), b.values.size() * sizeof(double));
}
void block_from_bytes(const std::string& bytes, long rows, ColumnBlock& b) {
  b.rows = rows;
  b.values.resize(bytes.size() / sizeof(double));
  std::memcpy(b.values.data(), bytes.data(), b.values.size() * sizeof(double));
}

void send_parts(int dest, int tag, const std::vector<const std::string*>& parts) {
  std::vector<std::uint64_t> head{parts.size()};
  for (const std::string* p : parts) head.push_back(p->size());
  MPI_Send(head.data(), static_cast<int>(head.size()), MPI_UINT64_T, dest, tag, MPI_COMM_WORLD);
  for (const std::string* p : parts)
    for (std::size_t at = 0; at < p->size(); at += kPiece)
      MPI_Send(p->data() + at, static_cast<int>(std::min(kPiece, p->size() - at)), MPI_BYTE, dest, tag, MPI_COMM_WORLD);
}

std::vector<std::string> receive_parts(int source, int tag) {
  MPI_Status st;
  MPI_Probe(source, tag, MPI_COMM_WORLD, &st);
  int count = 0;
  MPI_Get_count(&st, MPI_UINT64_T, &count);
  std::vector<std::uint64_t> head(static_cast<std::size_t>(count));
  MPI_Recv(head.data(), count, MPI_UINT64_T, source, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  std::vector<std::string> parts(head.empty() ? 0 : head[0]);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    parts[i].resize(head[i + 1]);
    for (std::size_t at = 0; at < parts[i].size(); at += kPiece)
      MPI_Recv(parts[i].data() + at, static_cast<int>(std::min(kPiece, parts[i].size() - at)), MPI_BYTE, source, tag,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  return parts;
}
#endif

// rank 0: ranges out in order, outputs back in any order and on to the writer in case order
class WriterExchange final : public ChunkExchange {
 public:
  WriterExchange(Ranks& ranks, long start, long end, long chunk, nlohmann::json about,
                 std::function<void(ChunkOutput&&)> write)
      : ranks_(ranks),
        next_first_(start),
        end_(end),
        chunk_(std::max(1L, chunk)),
        write_next_(start),
        write_(std::move(write)),
        about_(static_cast<std::size_t>(ranks.size())) {
    about_[0] = std::move(about);
#ifdef FIVSIM_HAVE_MPI
    if (ranks_.size() > 1) service_ = std::thread([this] { serve(); });
#endif
  }
  ~WriterExchange() override {
    stop();
    if (service_.joinable()) service_.join();
  }

  std::optional<ChunkRange> next() override {
    std::lock_guard<std::mutex> lock(m_);
    return take_locked();
  }

  void done(ChunkOutput&& out) override { accept(std::move(out)); }

  void fail(int code, const std::string& message) override {
    std::lock_guard<std::mutex> lock(m_);
    if (!failure_) failure_ = RankFailure(code, message);
    stopped_ = true;
  }

  void finish() override {
    if (service_.joinable()) service_.join();
    std::lock_guard<std::mutex> lock(m_);
    if (write_error_) std::rethrow_exception(write_error_);
    if (failure_) throw *failure_;
  }

  std::vector<nlohmann::json> about_ranks() const override { return about_; }

 private:
  void stop() {
    std::lock_guard<std::mutex> lock(m_);
    stopped_ = true;
  }

  std::optional<ChunkRange> take_locked() {
    if (stopped_ || next_first_ >= end_) return std::nullopt;
    const ChunkRange r{next_first_, std::min(chunk_, end_ - next_first_)};
    next_first_ += r.n;
    return r;
  }

  // the writer sees each output once, in case order; its exception stops the sweep
  void accept(ChunkOutput&& out) {
    std::lock_guard<std::mutex> lock(m_);
    if (write_error_) return;
    waiting_.emplace(out.first, std::move(out));
    try {
      while (!waiting_.empty() && waiting_.begin()->first == write_next_) {
        auto node = waiting_.extract(waiting_.begin());
        write_next_ += node.mapped().n;
        write_(std::move(node.mapped()));
      }
    } catch (...) {
      write_error_ = std::current_exception();
      stopped_ = true;
    }
  }

#ifdef FIVSIM_HAVE_MPI
  // answers the other ranks until each has been told to stop and has returned all its chunks
  void serve() {
    const int n = ranks_.size();
    std::vector<int> outstanding(static_cast<std::size_t>(n), 0);
    std::vector<char> stopped(static_cast<std::size_t>(n), 0), finished(static_cast<std::size_t>(n), 0);
    int active = n - 1;
    while (active > 0) {
      MPI_Status st;
      int flag = 0;
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
      if (!flag) {
        // a light poll: this thread shares rank 0's cores with its chunks
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        continue;
      }
      const int w = st.MPI_SOURCE;
      const std::size_t wi = static_cast<std::size_t>(w);
      std::vector<std::string> parts = receive_parts(w, st.MPI_TAG);
      if (st.MPI_TAG == kRequest) {
        std::optional<ChunkRange> r;
        {
          std::lock_guard<std::mutex> lock(m_);
          if (!parts.empty() && !parts[0].empty()) about_[wi] = nlohmann::json::parse(parts[0]);
          r = take_locked();
        }
        long msg[2] = {r ? r->first : 0, r ? r->n : 0};
        MPI_Send(msg, 2, MPI_LONG, w, kAssign, MPI_COMM_WORLD);
        if (r)
          ++outstanding[wi];
        else
          stopped[wi] = 1;
      } else if (st.MPI_TAG == kResult && parts.size() == 3) {
        const nlohmann::json head = nlohmann::json::parse(parts[0]);
        ChunkOutput out;
        out.first = head["first"].get<long>();
        out.n = head["n"].get<long>();
        out.rank = w;
        block_from_bytes(parts[1], head["cases_rows"].get<long>(), out.cases);
        block_from_bytes(parts[2], head["points_rows"].get<long>(), out.points);
        from_json(head["counts"], out.counts);
        --outstanding[wi];
        accept(std::move(out));
      } else {
        // a failure, or a message this version does not know (a rank of another build)
        const nlohmann::json f = st.MPI_TAG == kFailed && !parts.empty()
                                     ? nlohmann::json::parse(parts[0], nullptr, false)
                                     : nlohmann::json::object();
        const bool known = f.is_object() && f.contains("message");
        fail(known ? f.value("code", 1) : 1,
             (known ? f["message"].get<std::string>() : std::string("an unreadable message")) + " (rank " +
                 std::to_string(w) + ")");
        stopped[wi] = 1;
        outstanding[wi] = 0;
      }
      if (stopped[wi] && outstanding[wi] == 0 && !finished[wi]) {
        finished[wi] = 1;
        --active;
      }
    }
    ranks_.mark_released();
  }
#endif

  Ranks& ranks_;
  std::mutex m_;
  long next_first_, end_, chunk_, write_next_;
  bool stopped_ = false;
  std::map<long, ChunkOutput> waiting_;
  std::function<void(ChunkOutput&&)> write_;
  std::vector<nlohmann::json> about_;
  std::optional<RankFailure> failure_;
  std::exception_ptr write_error_;
  std::thread service_;
};

#ifdef FIVSIM_HAVE_MPI
// every rank but 0: one request per range, one message per output
class WorkerExchange final : public ChunkExchange {
 public:
  explicit WorkerExchange(nlohmann::json about) : about_(about.dump()) {}

  std::optional<ChunkRange> next() override {
    // after "stop" rank 0 may have ended its service: ask no more
    if (stopped_) return std::nullopt;
    const std::string about = std::move(about_);  // said with the first request only
    about_.clear();
    send_parts(0, kRequest, {&about});
    long msg[2] = {0, 0};
    MPI_Recv(msg, 2, MPI_LONG, 0, kAssign, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    stopped_ = msg[1] <= 0;
    if (stopped_) return std::nullopt;
    return ChunkRange{msg[0], msg[1]};
  }

  void done(ChunkOutput&& out) override {
    const std::string head = nlohmann::json{
        {"first", out.first},
        {"n", out.n},
        {"cases_rows", out.cases.rows},
        {"points_rows", out.points.rows},
        {"counts",
         to_json(out.counts)}}.dump();
    const std::string cases = block_bytes(out.cases), points = block_bytes(out.points);
    send_parts(0, kResult, {&head, &cases, &points});
  }

  void fail(int code, const std::string& message) override {
    const std::string f = nlohmann::json{{"code", code}, {"message", message}}.dump();
    send_parts(0, kFailed, {&f});
    stopped_ = true;
  }

  void finish() override {}
  std::vector<nlohmann::json> about_ranks() const override { return {}; }

 private:
  std::string about_;
  bool stopped_ = false;
};
#endif

}  // namespace

Ranks::Ranks() {
  const long launched = launcher_size();
#ifdef FIVSIM_HAVE_MPI
  if (launched > 0) {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
    mpi_ = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local_rank_);
    MPI_Comm_free(&node);
    if (provided < MPI_THREAD_SERIALIZED && size_ > 1)
      throw std::runtime_error("the MPI library offers no MPI_THREAD_SERIALIZED, which rank 0's service thread needs");
  }
#else
  if (launched > 1)
    throw std::runtime_error("started as one of " + std::to_string(launched) +
                             " processes, but this fivsim was built without MPI (FIVSIM_MPI=OFF or no MPI found): "
                             "each would run the whole sweep. Build with -DFIVSIM_MPI=ON, or run shards: "
                             "--shard i/N and `fivsim merge`");
#endif
}

Ranks::~Ranks() {
#ifdef FIVSIM_HAVE_MPI
  if (!mpi_) return;
  try {
    release_workers();
  } catch (...) {
  }
  MPI_Finalize();
#endif
}

std::string Ranks::host() const {
  char name[256] = {};
  ::gethostname(name, sizeof(name) - 1);
  return name;
}

int Ranks::node_ranks_with([[maybe_unused]] const std::string& key) const {
#ifdef FIVSIM_HAVE_MPI
  if (!mpi_) return 1;
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
  int node_size = 1;
  MPI_Comm_size(node, &node_size);
  // keys of a fixed width (a device UUID is 32 hex digits), cut beyond it
  constexpr int kWidth = 64;
  std::string mine = key.substr(0, kWidth);
  mine.resize(kWidth, '\0');
  std::string all(static_cast<std::size_t>(kWidth) * node_size, '\0');
  MPI_Allgather(mine.data(), kWidth, MPI_CHAR, all.data(), kWidth, MPI_CHAR, node);
  MPI_Comm_free(&node);
  int same = 0;
  for (int r = 0; r < node_size; ++r) same += all.compare(static_cast<std::size_t>(r) * kWidth, kWidth, mine) == 0;
  return same;
#else
  return 1;
#endif
}

void Ranks::release_workers() {
  if (rank_ != 0 || size_ <= 1 || released_) return;
  // an exchange with nothing to hand out answers every request with "stop"
  WriterExchange none(*this, 0, 0, 1, nlohmann::json::object(), [](ChunkOutput&&) {});
  try {
    none.finish();
  } catch (const std::exception&) {
  }
}

std::unique_ptr<ChunkExchange> make_writer_exchange(Ranks& ranks, long start, long end, long chunk,
                                                    nlohmann::json about, std::function<void(ChunkOutput&&)> write) {
  return std::make_unique<WriterExchange>(ranks, start, end, chunk, std::move(about), std::move(write));
}

std::unique_ptr<ChunkExchange> make_worker_exchange([[maybe_unused]] Ranks& ranks,
                                                    [[maybe_unused]] nlohmann::json about) {
#ifdef FIVSIM_HAVE_MPI
  return std::make_unique<WorkerExchange>(std::move(about));
#else
  throw std::logic_error("a worker rank in a build without MPI");
#endif
}

}  // namespace fivsim::sweep

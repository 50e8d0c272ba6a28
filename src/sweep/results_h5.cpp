// src/sweep/results_h5.cpp — results.h5 written from a sweep's spill files, or from named columns
// (sweep/results_h5.hpp; read back by results_h5_read.cpp). Chunks are shuffled and deflated here, on all threads, and
// written whole (H5Dwrite_chunk): the bytes are a shuffle and a zlib stream as HDF5's own filters write them (its
// nearly random byte planes in stored blocks), so any reader decodes them with the filters the
// datasets declare; a real column stored as it is declares deflate alone and its chunks are written
// past the filter (the chunk's filter mask), but for a table of less than a chunk, deflated so that
// its padding takes no room.
#include "fivsim/sweep/results_h5.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>

#include "fivsim/sweep/host_memory.hpp"
#include "fivsim/sweep/h5_file.hpp"
#include "fivsim/core/output_file.hpp"
#include "fivsim/core/unique_fd.hpp"
#include "fivsim/io/json_reader.hpp"

namespace fivsim::sweep {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr hsize_t kChunkRows = 65536;
constexpr int kDeflateLevel = 1;

// the spill blocks' bytes are the machine's doubles; the file's types are little-endian
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "results.h5 is written from little-endian memory");

// the file type of a column, and the bytes of one value of it
struct ColumnType {
  H5Handle type;
  std::size_t size = 8;
};

ColumnType column_type(ColumnKind kind, int n_contacts) {
  ColumnType c;
  switch (kind) {
    case ColumnKind::real:
      c.type = H5Handle(H5Tcopy(H5T_IEEE_F64LE), H5Tclose);
      break;
    case ColumnKind::whole:
      c.type = H5Handle(H5Tcopy(H5T_STD_I64LE), H5Tclose);
      break;
    case ColumnKind::case_class: {
      c.type = H5Handle(H5Tenum_create(H5T_STD_I8LE), H5Tclose);
      c.size = 1;
      for (const auto& [word, code] : class_words()) {
        const std::int8_t v = static_cast<std::int8_t>(code);
        H5Tenum_insert(c.type, word.c_str(), &v);
      }
      break;
    }
    case ColumnKind::status: {
      c.type = H5Handle(H5Tenum_create(H5T_STD_I8LE), H5Tclose);
      c.size = 1;
      const auto names = status_names();
      for (std::size_t i = 0; i < names.size(); ++i) {
        const std::int8_t v = static_cast<std::int8_t>(i);
        H5Tenum_insert(c.type, names[i].c_str(), &v);
      }
      break;
    }
    case ColumnKind::point_kind: {
      c.type = H5Handle(H5Tenum_create(H5T_STD_I16LE), H5Tclose);
      c.size = 2;
      for (const auto& [name, code] : point_kind_names(n_contacts)) {
        const std::int16_t v = static_cast<std::int16_t>(code);
        H5Tenum_insert(c.type, name.c_str(), &v);
      }
      break;
    }
  }
  return c;
}

// whether a byte plane's order-0 entropy is above 7.5 bits a byte: deflated, it would keep more
// than 15/16 of its size. Estimated from every fourth byte (16384 of a chunk's plane: the estimate
// of 8 bits is then low by about 0.01)
bool nearly_random(const unsigned char* plane, hsize_t n) {
  // four histograms, so that equal bytes in a row do not wait on each other's count
  std::uint32_t count[4][256] = {};
  hsize_t i = 0;
  for (; i + 16 <= n; i += 16) {
    ++count[0][plane[i]];
    ++count[1][plane[i + 4]];
    ++count[2][plane[i + 8]];
    ++count[3][plane[i + 12]];
  }
  double sampled = static_cast<double>(i / 4);
  for (; i < n; i += 4) {
    ++count[0][plane[i]];
    sampled += 1.0;
  }
  double bits = 0.0;
  for (int v = 0; v < 256; ++v) {
    const std::uint32_t c = count[0][v] + count[1][v] + count[2][v] + count[3][v];
    if (c > 0) bits -= static_cast<double>(c) * std::log2(static_cast<double>(c) / sampled);
  }
  return bits > 7.5 * sampled;
}

// the thread's zlib stream, level 1 with run-length matches only (Z_RLE: twice as fast as level
// 1's searches and as small on shuffled numbers and on padding, whose redundancy is runs of equal
// bytes), reset for a chunk
z_stream& rle_stream() {
  struct Stream {
    z_stream z{};
    Stream() {
      if (deflateInit2(&z, kDeflateLevel, Z_DEFLATED, 15, 8, Z_RLE) != Z_OK)
        throw std::runtime_error("results.h5: no deflate");
    }
    ~Stream() { deflateEnd(&z); }
  };
  thread_local Stream stream;
  deflateReset(&stream.z);
  deflateParams(&stream.z, kDeflateLevel, Z_RLE);
  return stream.z;
}

// `count` values as the column's bytes (zero past them up to the chunk's size), shuffled as
// HDF5's shuffle filter orders them, deflated as its deflate filter does, into `out`. A real column
// stored as it is (`shuffled` false): the chunk's doubles as they are, the filter skipped (the
// returned mask, bit 0: HDF5's mark of a filter not applied), unless the chunk is a table's only and
// partial one (`deflate_partial`), which is deflated so that a small table's padding takes no room.
// The scratch is the thread's own, kept from chunk to chunk
unsigned chunk_bytes(const double* values, hsize_t count, ColumnKind kind, std::size_t size, bool shuffled,
                     bool deflate_partial, std::vector<unsigned char>& out) {
  if (!shuffled) {
    const std::size_t bytes = kChunkRows * sizeof(double);
    const bool stored = count == kChunkRows || !deflate_partial;
    thread_local std::vector<unsigned char> padded;
    std::vector<unsigned char>& chunk = stored ? out : padded;
    resize_for_writing(chunk, bytes);
    std::memcpy(chunk.data(), values, count * sizeof(double));
    std::memset(chunk.data() + count * sizeof(double), 0, bytes - count * sizeof(double));
    if (stored) return 1u;
    z_stream& z = rle_stream();
    resize_for_writing(out, deflateBound(&z, static_cast<uLong>(bytes)));
    z.next_in = padded.data();
    z.avail_in = static_cast<uInt>(bytes);
    z.next_out = out.data();
    z.avail_out = static_cast<uInt>(out.size());
    if (deflate(&z, Z_FINISH) != Z_STREAM_END) throw std::runtime_error("results.h5: deflate failed");
    out.resize(out.size() - z.avail_out);
    return 0u;
  }
  thread_local std::vector<unsigned char> raw;
  resize_for_writing(raw, kChunkRows * size);
  std::memset(raw.data(), 0, raw.size());
  if (size == 8) {
    // the values' bytes straight into their shuffled places: byte b of value i at b·rows + i
    for (hsize_t i = 0; i < count; ++i) {
      const double x = values[i];
      std::uint64_t bits = 0;
      if (kind == ColumnKind::whole) {
        const std::int64_t v = static_cast<std::int64_t>(x);
        std::memcpy(&bits, &v, 8);
      } else {
        std::memcpy(&bits, &x, 8);
      }
      for (std::size_t b = 0; b < 8; ++b) raw[b * kChunkRows + i] = static_cast<unsigned char>(bits >> (8 * b));
    }
  } else if (size == 2) {
    for (hsize_t i = 0; i < count; ++i) {
      const std::uint16_t v = static_cast<std::uint16_t>(static_cast<std::int16_t>(values[i]));
      raw[i] = static_cast<unsigned char>(v);
      raw[kChunkRows + i] = static_cast<unsigned char>(v >> 8);
    }
  } else {
    for (hsize_t i = 0; i < count; ++i) raw[i] = static_cast<unsigned char>(static_cast<std::int8_t>(values[i]));
  }
  // one zlib stream over the byte planes (the shuffled chunk), each plane deflated with run-length
  // matches, or stored where its bytes are nearly random (the low mantissa bytes of measured
  // values: deflate would take most of the time to win a few percent). Any inflater reads the
  // mixed blocks
  z_stream& z = rle_stream();
  // stored blocks add 5 bytes a 64 KiB, a switch of level a block end
  resize_for_writing(out, deflateBound(&z, static_cast<uLong>(raw.size())) + 64 * size + 1024);
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  int level = kDeflateLevel;
  for (std::size_t b = 0; b < size; ++b) {
    const unsigned char* plane = raw.data() + b * kChunkRows;
    const int wanted = nearly_random(plane, kChunkRows) ? 0 : kDeflateLevel;
    if (wanted != level) {
      if (deflateParams(&z, wanted, Z_RLE) != Z_OK) throw std::runtime_error("results.h5: deflate failed");
      level = wanted;
    }
    z.next_in = const_cast<Bytef*>(plane);
    z.avail_in = static_cast<uInt>(kChunkRows);
    const int flush = b + 1 == size ? Z_FINISH : Z_NO_FLUSH;
    if (deflate(&z, flush) != (flush == Z_FINISH ? Z_STREAM_END : Z_OK) || z.avail_in != 0)
      throw std::runtime_error("results.h5: deflate failed");
  }
  out.resize(out.size() - z.avail_out);
  return 0u;
}

// a table of results.h5 as its rows come: the group and its datasets (of no rows at first), then
// the rows gathered into chunks of kChunkRows, each chunk's columns packed on all threads and
// written whole; close() writes the last, partial chunk and sets the table's length
class TablePacker {
 public:
  TablePacker(hid_t root, const H5Table& t) : t_(t), nc_(t.schema.size()) {
    // no modification times in the objects: the same sweep gives the same bytes
    H5Handle gcpl(H5Pcreate(H5P_GROUP_CREATE), H5Pclose);
    H5Pset_obj_track_times(gcpl, 0);
    H5Handle group(H5Gcreate2(root, t.group.c_str(), H5P_DEFAULT, gcpl, H5P_DEFAULT), H5Gclose);
    for (const auto& n : t.schema.names) names_.push_back(h5_column_name(n));
    write_strings_attribute(group, "columns", names_);
    const hsize_t none = 0, chunk = kChunkRows, unlimited = H5S_UNLIMITED;
    H5Handle space(H5Screate_simple(1, &none, &unlimited), H5Sclose);
    for (int c = 0; c < nc_; ++c) {
      const std::size_t cc = static_cast<std::size_t>(c);
      types_.push_back(column_type(t.schema.kinds[cc], t.n_contacts));
      shuffled_.push_back(t.deflate_real || t.schema.kinds[cc] != ColumnKind::real);
      H5Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
      H5Pset_chunk(dcpl, 1, &chunk);
      H5Pset_obj_track_times(dcpl, 0);
      if (shuffled_.back() && types_.back().size > 1) H5Pset_shuffle(dcpl);
      H5Pset_deflate(dcpl, kDeflateLevel);
      sets_.emplace_back(
          H5Dcreate2(group, names_[cc].c_str(), types_.back().type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT), H5Dclose);
      if (sets_.back().id < 0) h5_fail("cannot create dataset " + names_[cc], t.spill);
      if (names_[cc] != t.schema.names[cc]) write_string_attribute(sets_.back(), "pointer", t.schema.names[cc]);
    }
    resize_for_writing(buffer_, static_cast<std::size_t>(kChunkRows) * static_cast<std::size_t>(nc_));
    packed_.resize(static_cast<std::size_t>(nc_));
    masks_.resize(static_cast<std::size_t>(nc_));
    class_col_ = t.schema.column("class");
    period_col_ = t.schema.column("period_n");
  }

  // a spill block: `rows` rows of `columns` columns, column after column
  void add(long rows, long columns, const double* values) {
    if (columns != nc_)
      h5_fail("a spill block has " + std::to_string(columns) + " columns, not " + std::to_string(nc_), t_.spill);
    for (long at = 0; at < rows;) {
      const long take = std::min<long>(rows - at, static_cast<long>(kChunkRows - filled_));
      for (int c = 0; c < nc_; ++c)
        std::memcpy(column(c) + filled_, values + static_cast<std::size_t>(c) * static_cast<std::size_t>(rows) + at,
                    static_cast<std::size_t>(take) * sizeof(double));
      // the class written as its word ("periodic-2"), from the class and the row's period_n
      if (class_col_ >= 0 && period_col_ >= 0)
        for (hsize_t i = filled_; i < filled_ + static_cast<hsize_t>(take); ++i)
          column(class_col_)[i] = class_word_code(column(class_col_)[i], column(period_col_)[i]);
      filled_ += static_cast<hsize_t>(take);
      at += take;
      if (filled_ == kChunkRows) flush();
    }
  }

  void close() {
    flush();
    for (int c = 0; c < nc_; ++c)
      if (H5Dset_extent(sets_[static_cast<std::size_t>(c)], &rows_) < 0)
        h5_fail("cannot size " + names_[static_cast<std::size_t>(c)], t_.spill);
  }

 private:
  double* column(int c) { return buffer_.data() + static_cast<std::size_t>(c) * kChunkRows; }

  void flush() {
    if (filled_ == 0) return;
#pragma omp parallel for schedule(dynamic, 1)
    for (int c = 0; c < nc_; ++c) {
      const std::size_t cc = static_cast<std::size_t>(c);
      masks_[cc] = chunk_bytes(column(c), filled_, t_.schema.kinds[cc], types_[cc].size, shuffled_[cc],
                               chunk_index_ == 0, packed_[cc]);
    }
    // the table's extent up to its last row, never past it: an extent cut back through a written
    // chunk makes HDF5 read, refill and deflate that chunk again (with its own deflate, for every
    // column of a table whose rows end inside a chunk)
    const hsize_t offset = chunk_index_ * kChunkRows, end = offset + filled_;
    for (int c = 0; c < nc_; ++c) {
      const std::size_t cc = static_cast<std::size_t>(c);
      if (H5Dset_extent(sets_[cc], &end) < 0 ||
          H5Dwrite_chunk(sets_[cc], H5P_DEFAULT, masks_[cc], &offset, packed_[cc].size(), packed_[cc].data()) < 0)
        h5_fail("cannot write a chunk of " + names_[cc], t_.spill.parent_path());
    }
    ++chunk_index_;
    rows_ += filled_;
    filled_ = 0;
  }

  const H5Table& t_;
  int nc_;
  std::vector<std::string> names_;
  std::vector<ColumnType> types_;
  std::vector<bool> shuffled_;   // shuffled and deflated, or (real columns) the values' bytes as they are
  std::vector<unsigned> masks_;  // each column's chunk: the filters it skipped
  std::vector<H5Handle> sets_;
  std::vector<double> buffer_;
  std::vector<std::vector<unsigned char>> packed_;
  int class_col_ = -1, period_col_ = -1;
  hsize_t filled_ = 0, chunk_index_ = 0, rows_ = 0;
};

// a spill file open for reading
struct SpillFile {
  int fd = -1;
  explicit SpillFile(int f) : fd(f) {}
  SpillFile(SpillFile&& o) noexcept : fd(std::exchange(o.fd, -1)) {}
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;
  SpillFile& operator=(SpillFile&&) = delete;
  ~SpillFile() {
    if (fd >= 0) ::close(fd);
  }
};

// `size` bytes of a file from `offset` (the spill's blocks, read where they were written)
void read_at(int fd, long offset, void* into, std::size_t size, const fs::path& file) {
  auto* p = static_cast<char*>(into);
  while (size > 0) {
    const ssize_t got = ::pread(fd, p, size, static_cast<off_t>(offset));
    if (got <= 0) h5_fail("a spill block is cut short", file);
    p += got;
    offset += got;
    size -= static_cast<std::size_t>(got);
  }
}

}  // namespace

std::string spill_block(const ColumnBlock& block, int columns) {
  const std::int64_t head[2] = {block.rows, columns};
  std::string bytes(reinterpret_cast<const char*>(head), sizeof head);
  bytes.append(reinterpret_cast<const char*>(block.values.data()), block.values.size() * sizeof(double));
  return bytes;
}

std::string h5_column_name(const std::string& column) {
  if (column.empty() || column[0] != '/') return column;
  std::string name = column.substr(1);
  for (char& ch : name)
    if (ch == '/') ch = '.';
  return name;
}

struct ResultsH5Writer::State {
  fs::path file;
  std::vector<H5Table> tables;
  std::vector<long> announced, packed;
  std::mutex m;
  std::condition_variable more;
  bool finishing = false, stopping = false;
  std::exception_ptr error;
  std::thread thread;

  // packs every table's blocks up to what was announced, until finish() or a stop; HDF5 is called
  // on this thread alone
  void run() {
    try {
      quiet_hdf5();
      H5Handle f = create_h5(file);
      if (f.id < 0) h5_fail("cannot create the file", file);
      write_string_attribute(f, "format", kResultsH5Format);
      write_string_attribute(f, "summary", json::object().dump());
      std::vector<std::unique_ptr<TablePacker>> packers;
      std::vector<SpillFile> spills;
      for (const H5Table& t : tables) {
        packers.push_back(std::make_unique<TablePacker>(f, t));
        spills.emplace_back(::open(t.spill.c_str(), O_RDONLY | O_CLOEXEC));
        if (spills.back().fd < 0) h5_fail("cannot read its spill", t.spill);
      }
      std::vector<double> values;
      for (;;) {
        std::vector<long> ends;
        bool last = false;
        {
          std::unique_lock<std::mutex> lock(m);
          more.wait(lock, [&] { return stopping || finishing || announced != packed; });
          if (stopping) return;
          ends = announced;
          last = finishing;
        }
        for (std::size_t k = 0; k < tables.size(); ++k) {
          long at = packed[k];
          while (at < ends[k]) {
            SpillHead head{};
            read_at(spills[k].fd, at, head.words, sizeof head.words, tables[k].spill);
            resize_for_writing(values, static_cast<std::size_t>(head.words[0] * head.words[1]));
            read_at(spills[k].fd, at + static_cast<long>(sizeof head.words), values.data(),
                    values.size() * sizeof(double), tables[k].spill);
            packers[k]->add(head.words[0], head.words[1], values.data());
            at += static_cast<long>(sizeof head.words + values.size() * sizeof(double));
          }
          std::lock_guard<std::mutex> lock(m);
          packed[k] = at;
        }
        if (last) break;
      }
      for (auto& p : packers) p->close();
      packers.clear();
      if (H5Fflush(f, H5F_SCOPE_GLOBAL) < 0 || f.close_now() < 0) h5_fail("cannot write the file", file);
    } catch (...) {
      std::lock_guard<std::mutex> lock(m);
      error = std::current_exception();
    }
  }
};

ResultsH5Writer::ResultsH5Writer(fs::path file, std::vector<H5Table> tables) : s_(std::make_unique<State>()) {
  s_->file = std::move(file);
  s_->tables = std::move(tables);
  s_->announced.assign(s_->tables.size(), 0);
  s_->packed.assign(s_->tables.size(), 0);
  s_->thread = std::thread([state = s_.get()] { state->run(); });
}

ResultsH5Writer::~ResultsH5Writer() {
  if (!s_->thread.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(s_->m);
    s_->stopping = true;
  }
  s_->more.notify_one();
  s_->thread.join();
}

void ResultsH5Writer::complete_to(const std::vector<long>& ends) {
  {
    std::lock_guard<std::mutex> lock(s_->m);
    s_->announced = ends;
  }
  s_->more.notify_one();
}

void ResultsH5Writer::finish() {
  {
    std::lock_guard<std::mutex> lock(s_->m);
    s_->finishing = true;
  }
  s_->more.notify_one();
  s_->thread.join();
  if (s_->error) std::rethrow_exception(s_->error);
}

void write_results_h5(const fs::path& file, const std::vector<H5Table>& tables) {
  std::vector<long> ends;
  for (const H5Table& t : tables) ends.push_back(static_cast<long>(fs::file_size(t.spill)));
  ResultsH5Writer w(file, tables);
  w.complete_to(ends);
  w.finish();
}

void set_results_h5_summary(const fs::path& file, const json& summary) {
  quiet_hdf5();
  const OutputEntry at(file);
  H5Handle f(H5Fopen(at.stable_path().c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
  if (f.id < 0) h5_fail("cannot open the file", file);
  if (H5Aexists(f, "summary") > 0) H5Adelete(f, "summary");
  write_string_attribute(f, "summary", summary.dump());
  if (H5Fflush(f, H5F_SCOPE_GLOBAL) < 0 || f.close_now() < 0) h5_fail("cannot write the file", file);
}

void join_results_h5(const std::vector<fs::path>& parts, const fs::path& file, const json& summary, int n_contacts) {
  std::vector<H5Table> tables;
  for (const std::string group : {"cases", "points"}) {
    if (parts.empty() || !results_h5_has_table(parts[0], group)) continue;
    H5Table t{
        group, {}, fs::path(file.string() + "." + group + ".bin"), n_contacts, real_columns_deflated(parts[0], group)};
    const UniqueFd spill(create_new_file(t.spill));
    for (std::size_t k = 0; k < parts.size(); ++k) {
      const long rows = results_h5_rows(parts[k], group);
      // block by block: a shard's table need not fit in memory
      for (long at = 0; at == 0 || at < rows; at += static_cast<long>(kChunkRows)) {
        const H5TableData d = read_results_h5(parts[k], group, at, static_cast<long>(kChunkRows));
        if (k == 0 && at == 0) t.schema = d.schema;
        if (d.schema.names != t.schema.names)
          throw std::runtime_error(parts[k].string() + " has other " + group + " columns than " + parts[0].string());
        const std::string bytes = spill_block(d.rows, t.schema.size());
        write_all(spill.get(), bytes, t.spill);
        if (rows == 0) break;
      }
    }
    tables.push_back(std::move(t));
  }
  write_results_h5(file, tables);
  set_results_h5_summary(file, summary);
  for (const H5Table& t : tables) remove_output_file(t.spill);
}

void write_tables_h5(const fs::path& file,
                     const std::vector<std::pair<std::string, const fivsim::NamedColumns*>>& tables,
                     const std::string& format, const json& summary) {
  quiet_hdf5();
  H5Handle f = create_h5(file);
  if (f.id < 0) h5_fail("cannot create the file", file);
  write_string_attribute(f, "format", format);
  write_string_attribute(f, "summary", summary.dump());
  // no modification times in the objects: the same run gives the same bytes
  H5Handle cpl(H5Pcreate(H5P_GROUP_CREATE), H5Pclose);
  H5Pset_obj_track_times(cpl, 0);
  H5Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  H5Pset_obj_track_times(dcpl, 0);
  for (const auto& [name, table] : tables) {
    H5Handle group(H5Gcreate2(f, name.c_str(), H5P_DEFAULT, cpl, H5P_DEFAULT), H5Gclose);
    if (group.id < 0) h5_fail("cannot create group " + name, file);
    std::vector<std::string> names;
    for (const std::string& n : table->names) names.push_back(h5_column_name(n));
    write_strings_attribute(group, "columns", names);
    for (std::size_t c = 0; c < names.size(); ++c) {
      const bool text = table->text[c];
      const std::vector<double>& v = table->columns[c];
      const hsize_t n = text ? table->texts[c].size() : v.size();
      H5Handle space(H5Screate_simple(1, &n, nullptr), H5Sclose);
      // whole numbers (a branch's index, a point's) as integers, so that readers index with them
      const bool whole = !text && std::all_of(v.begin(), v.end(), [](double x) {
        return std::isfinite(x) && x == std::trunc(x) && std::abs(x) < 9.0e15;
      });
      H5Handle type = text    ? h5_string_type()
                      : whole ? H5Handle(H5Tcopy(H5T_STD_I64LE), H5Tclose)
                              : H5Handle(H5Tcopy(H5T_IEEE_F64LE), H5Tclose);
      H5Handle set(H5Dcreate2(group, names[c].c_str(), type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT), H5Dclose);
      if (set.id < 0) h5_fail("cannot create dataset " + name + "/" + names[c], file);
      herr_t written = 0;
      if (text) {
        std::vector<const char*> cells;
        for (const std::string& t : table->texts[c]) cells.push_back(t.c_str());
        if (n > 0) written = H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, cells.data());
      } else if (whole) {
        std::vector<std::int64_t> ints(v.begin(), v.end());
        if (n > 0) written = H5Dwrite(set, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, ints.data());
      } else if (n > 0) {
        written = H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
      }
      if (written < 0) h5_fail("cannot write dataset " + name + "/" + names[c], file);
      if (names[c] != table->names[c]) write_string_attribute(set, "pointer", table->names[c]);
    }
  }
  if (H5Fflush(f, H5F_SCOPE_GLOBAL) < 0 || f.close_now() < 0) h5_fail("cannot write the file", file);
}

}  // namespace fivsim::sweep

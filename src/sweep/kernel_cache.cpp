// src/sweep/kernel_cache.cpp — compiled kernels on disk (sweep/kernel_cache.hpp).
#include "fivsim/sweep/kernel_cache.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <system_error>

namespace fivsim::sweep {
namespace {

namespace fs = std::filesystem;

constexpr const char* kMagic = "fivsim kernel 1";

// two 64-bit FNV-1a lanes with different offsets and primes: a key, not a signature
struct Hash128 {
  std::uint64_t a = 0xcbf29ce484222325ull, b = 0x84222325cbf29ce4ull;
  void add(const std::string& s) {
    for (const unsigned char c : s) {
      a = (a ^ c) * 0x100000001b3ull;
      b = (b ^ c) * 0x00000100000001b3ull + 0x9e3779b97f4a7c15ull;
    }
  }
  std::string hex() const {
    char buf[33];
    std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(a),
                  static_cast<unsigned long long>(b));
    return buf;
  }
};

std::string checksum(const std::string& image) {
  Hash128 h;
  h.add(image);
  return h.hex();
}

fs::path entry_path(const fs::path& folder, const std::string& key) { return folder / (key + ".kernel"); }

}  // namespace

std::string kernel_cache_key(std::initializer_list<std::string> parts) {
  Hash128 h;
  for (const std::string& p : parts) {
    h.add(std::to_string(p.size()) + ":");
    h.add(p);
  }
  return h.hex();
}

std::optional<fs::path> kernel_cache_folder(const std::string& option) {
  std::string chosen = option;
  if (chosen.empty())
    if (const char* v = std::getenv("FIVSIM_KERNEL_CACHE")) chosen = v;
  if (chosen == "off") return std::nullopt;
  if (!chosen.empty()) return fs::path(chosen);
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "fivsim" / "kernels";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "fivsim" / "kernels";
  return std::nullopt;
}

std::optional<std::string> load_cached_kernel(const fs::path& folder, const std::string& key) {
  std::ifstream in(entry_path(folder, key), std::ios::binary);
  if (!in) return std::nullopt;
  std::string magic, stored_key, sum;
  std::size_t size = 0;
  if (!std::getline(in, magic) || magic != kMagic || !std::getline(in, stored_key) || stored_key != key ||
      !(in >> size) || !(in >> sum) || in.get() != '\n')
    return std::nullopt;
  std::string image(size, '\0');
  if (size > 0 && !in.read(image.data(), static_cast<std::streamsize>(size))) return std::nullopt;
  if (in.peek() != std::char_traits<char>::eof() || checksum(image) != sum) return std::nullopt;
  return image;
}

bool store_cached_kernel(const fs::path& folder, const std::string& key, const std::string& image) {
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) return false;
  // a name of this process's own: a sweep compiling the same kernel elsewhere writes another
  const fs::path temporary = folder / (key + ".kernel." + std::to_string(::getpid()) + ".partial");
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << kMagic << '\n' << key << '\n' << image.size() << '\n' << checksum(image) << '\n';
    out.write(image.data(), static_cast<std::streamsize>(image.size()));
    out.close();
    if (!out) {
      fs::remove(temporary, ec);
      return false;
    }
  }
  fs::rename(temporary, entry_path(folder, key), ec);
  if (!ec) return true;
  fs::remove(temporary, ec);
  return false;
}

}  // namespace fivsim::sweep

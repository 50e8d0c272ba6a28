// fivsim/sweep/kernel_cache.hpp — compiled kernels kept on disk, one file per key: the hash of
// everything that shapes the image (the source, the device's architecture, the compiler and its
// options). An entry carries its key, its length and its image's checksum, so that a truncated or
// altered one is compiled again and replaced, never loaded; entries are written whole (a temporary
// file renamed into place), so that two sweeps compiling the same kernel at once both succeed.
#pragma once

#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>

namespace fivsim::sweep {

// 32 hexadecimal digits naming what `parts` (joined with their lengths, so that no two splits of
// the same text collide) compile to
std::string kernel_cache_key(std::initializer_list<std::string> parts);

// where compiled kernels are kept: `option` (--kernel-cache DIR) where given, else
// $FIVSIM_KERNEL_CACHE, else $XDG_CACHE_HOME/fivsim/kernels, else ~/.cache/fivsim/kernels;
// nothing where the one that applies is "off" (compile every time)
std::optional<std::filesystem::path> kernel_cache_folder(const std::string& option);

// the image kept under `key` in `folder`; nothing where there is none or it is damaged
std::optional<std::string> load_cached_kernel(const std::filesystem::path& folder, const std::string& key);

// keeps `image` under `key` in `folder` (created where missing); false, with nothing left
// half-written, where the folder cannot be written (the sweep goes on with its compiled image)
bool store_cached_kernel(const std::filesystem::path& folder, const std::string& key, const std::string& image);

}  // namespace fivsim::sweep

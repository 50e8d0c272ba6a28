// src/app/sweep.cpp — a front end's sweep request as the runner's options (app/sweep.hpp).
#include "fivsim/app/sweep.hpp"

#include <cstdio>

#include "fivsim/core/input_error.hpp"

namespace fivsim {
namespace {

// the position of `value` among `choices`, or an InputError listing them
int choice(const std::string& value, std::initializer_list<const char*> choices, const std::string& option) {
  int i = 0;
  std::string listed;
  for (const char* c : choices) {
    if (value == c) return i;
    listed += (i > 0 ? (i + 1 == static_cast<int>(choices.size()) ? " or " : ", ") : "") + std::string(c);
    ++i;
  }
  throw InputError(option, "must be " + listed + ", got '" + value + "'");
}

}  // namespace

sweep::SweepDevice parse_sweep_device(const std::string& name, const std::string& option) {
  constexpr sweep::SweepDevice devices[] = {sweep::SweepDevice::automatic, sweep::SweepDevice::cpu,
                                            sweep::SweepDevice::cuda};
  return devices[choice(name, {"auto", "cpu", "cuda"}, option)];
}

SweepOutcome run_sweep_request(const SweepRequest& request, Ranks& ranks) {
  const std::string& dash = request.option_prefix;
  sweep::SweepOptions options;
  options.out = request.out;
  options.inputs = request.inputs;
  options.device = parse_sweep_device(request.device, dash + "device");
  options.single_precision = choice(request.precision, {"double", "float"}, dash + "precision") == 1;
  constexpr sweep::SweepFormat formats[] = {sweep::SweepFormat::automatic, sweep::SweepFormat::csv,
                                            sweep::SweepFormat::h5, sweep::SweepFormat::both};
  options.format = formats[choice(request.format, {"auto", "csv", "h5", "both"}, dash + "format")];
  options.deflate_real = choice(request.compression, {"none", "deflate"}, dash + "compression") == 1;
  if (!request.shard.empty()) {
    // "i/N": the i-th of N contiguous ranges of case indices; `fivsim merge` joins them (the
    // runner checks the range against the sweep)
    long i = -1, n = 0;
    char tail = 0;
    if (std::sscanf(request.shard.c_str(), "%ld/%ld%c", &i, &n, &tail) != 2 || n < 1 || i < 0 || i >= n ||
        n > 100000000)
      throw InputError(dash + "shard", "must be i/N with 0 <= i < N <= the sweep's cases, got '" + request.shard + "'");
    options.shard_index = static_cast<int>(i);
    options.shard_count = static_cast<int>(n);
  }
  options.chunk = request.chunk;
  options.threads = request.threads;
  options.resume = request.resume;
  options.kernels.specialise = choice(request.kernels, {"specialised", "generic"}, dash + "kernels") == 0;
  options.kernels.cache = request.kernel_cache;
  options.hooks = request.hooks;
  options.tables = request.tables;
  options.progress = request.progress;
  return sweep::run_sweep(request.document, options, ranks);
}

}  // namespace fivsim

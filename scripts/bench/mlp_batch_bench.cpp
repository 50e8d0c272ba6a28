// scripts/bench/mlp_batch_bench.cpp — throughput of the batched networks (pinn/mlp_batch.hpp): one
// fused forward + backward pass of a least-squares loss for every network of a batch, on the CUDA
// backend and on the CPU backend, for the seed papers' layouts. The PyTorch peer
// (scripts/bench/bench_mlp_torch.py) times the same workload; scripts/bench/bench_pinn_gpu.py runs both and
// prints the ratios.
//
// usage: fivsim_bench_mlp [--networks 10000] [--points 1] [--hidden 20x7] [--inputs 2] [--outputs 10]
//                         [--repeats 200] [--precision double|float] [--cpu-threads 0]
//                         [--train-steps 0]
// prints one JSON object: seconds per batch evaluation on each backend (on CUDA: the automatic
// mapping of networks onto threads as gpu_s, and each mapping alone: thread, group, points; 0 where
// it does not apply)
// and network-evaluations/s, with the result's accuracy against the same networks in double
// (against_double: in float, the largest relative error of a loss and of a gradient). With
// --train-steps N it times training instead: every network's
// forward + backward pass and its own Adam step (mlp_train_batch_*), N steps in one CUDA launch,
// and reports seconds per step of the whole batch (cpu_step_s, gpu_step_s) with the loss of network
// 0 after the CPU's steps on both backends (cpu_loss0, gpu_loss0: the same steps agree to rounding).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "pinn/mlp_batch_problems.hpp"

namespace {

struct Args {
  long networks = 10000;
  int points = 1;
  int width = 20, depth = 7;
  int inputs = 2, outputs = 10;
  int repeats = 200;
  std::string precision = "double";
  int cpu_threads = 0;
  int train_steps = 0;
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr, "fivsim_bench_mlp: %s\n", why);
  std::exit(2);
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (i + 1 >= argc) usage(("missing value after " + k).c_str());
    const char* v = argv[++i];
    if (k == "--networks")
      a.networks = std::atol(v);
    else if (k == "--points")
      a.points = std::atoi(v);
    else if (k == "--hidden") {
      if (std::sscanf(v, "%dx%d", &a.width, &a.depth) != 2) usage("--hidden takes WIDTHxDEPTH, e.g. 20x7");
    } else if (k == "--inputs")
      a.inputs = std::atoi(v);
    else if (k == "--outputs")
      a.outputs = std::atoi(v);
    else if (k == "--repeats")
      a.repeats = std::atoi(v);
    else if (k == "--precision")
      a.precision = v;
    else if (k == "--cpu-threads")
      a.cpu_threads = std::atoi(v);
    else if (k == "--train-steps")
      a.train_steps = std::atoi(v);
    else
      usage(("unknown option " + k).c_str());
  }
  if (a.networks < 1 || a.points < 1 || a.width < 1 || a.depth < 1 || a.inputs < 1 || a.outputs < 1 || a.repeats < 1)
    usage("sizes and repeats must be positive");
  if (a.precision != "double" && a.precision != "float") usage("--precision is double or float");
  if (a.train_steps < 0) usage("--train-steps must be 0 or positive");
  return a;
}

// training: forward + backward + Adam step per network and step (the PyTorch peer's
// torch.optim.Adam with its defaults and lr 1e-3)
template <class T>
int run_training(const Args& a) {
  auto d =
      fivsim::test::make_fit_batch<T>(a.networks, a.points, a.inputs, std::vector<int>(a.depth, a.width), a.outputs);
  fivsim::OptimizerOptions adam;
  adam.kind = fivsim::OptimizerKind::adam;
  adam.max_iter = a.train_steps + 1;  // the steps asked for, never an early stop
  adam.tol = 0.0;
  // CPU: a few steps (the slow side), on the wall clock
  const int cpu_steps = a.train_steps < 3 ? a.train_steps : 3;
  std::vector<T> cpu_params = d.params, cpu_loss(static_cast<std::size_t>(a.networks));
  const auto t0 = std::chrono::steady_clock::now();
  fivsim::mlp_train_batch_cpu(d.L, d.train_view(cpu_params, cpu_loss), cpu_steps, adam, a.cpu_threads);
  const double cpu_step_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / cpu_steps;
  // CUDA, each mapping that trains: the CPU's steps from the same start (the agreement check, and
  // the warm-up), then all steps; the automatic choice is reported as gpu_step_s
  double gpu_loss0 = 0.0;
  const auto time_gpu = [&](fivsim::MlpCudaMapping mapping, std::string& err) {
    std::vector<T> gpu_params = d.params, gpu_loss(static_cast<std::size_t>(a.networks));
    double check_s = 0.0, total_s = 0.0;
    err =
        fivsim::mlp_train_batch_cuda(d.L, d.train_view(gpu_params, gpu_loss), cpu_steps, adam, check_s, mapping).error;
    if (mapping == fivsim::MlpCudaMapping::automatic) gpu_loss0 = static_cast<double>(gpu_loss[0]);
    gpu_params = d.params;
    if (err.empty())
      err = fivsim::mlp_train_batch_cuda(d.L, d.train_view(gpu_params, gpu_loss), a.train_steps, adam, total_s, mapping)
                .error;
    return err.empty() ? total_s / a.train_steps : 0.0;
  };
  std::string err, group_err, gemm_err;
  const double gpu_step_s = time_gpu(fivsim::MlpCudaMapping::automatic, err);
  const double gpu_group_step_s = time_gpu(fivsim::MlpCudaMapping::group, group_err);
  const double gpu_gemm_step_s = time_gpu(fivsim::MlpCudaMapping::gemm, gemm_err);
  std::printf(
      "{\"networks\": %ld, \"points\": %d, \"hidden\": \"%dx%d\", \"inputs\": %d, \"outputs\": %d, \"params\": %ld, "
      "\"precision\": \"%s\", \"optimizer\": \"adam\", \"train_steps\": %d, \"cpu_threads\": %d, "
      "\"cpu_step_s\": %.6e, \"gpu\": %s, \"gpu_error\": \"%s\", \"gpu_step_s\": %.6e, "
      "\"gpu_group_step_s\": %.6e, \"gpu_gemm_step_s\": %.6e, "
      "\"gpu_network_steps_per_s\": %.6e, \"cpu_loss0\": %.17g, \"gpu_loss0\": %.17g}\n",
      a.networks, a.points, a.width, a.depth, a.inputs, a.outputs, static_cast<long>(d.L.param_count()),
      a.precision.c_str(), a.train_steps, a.cpu_threads > 0 ? a.cpu_threads : omp_get_max_threads(), cpu_step_s,
      err.empty() ? "true" : "false", err.c_str(), gpu_step_s, gpu_group_step_s, gpu_gemm_step_s,
      gpu_step_s > 0 ? a.networks / gpu_step_s : 0.0, static_cast<double>(cpu_loss[0]), gpu_loss0);
  return 0;
}

// a float batch's result against the same networks, inputs and targets in double (each value
// widened exactly, evaluated on the CPU): the largest relative error of a network's loss and of its
// gradient (its largest component's error over its largest component); double against itself: 0
template <class T>
std::pair<double, double> against_double(const fivsim::test::FitBatchData<T>& d, int threads) {
  if constexpr (std::is_same_v<T, double>) {
    return {0.0, 0.0};
  } else {
    fivsim::test::FitBatchData<double> w;
    w.L = d.L;
    w.networks = d.networks;
    w.points = d.points;
    w.params.assign(d.params.begin(), d.params.end());
    w.inputs.assign(d.inputs.begin(), d.inputs.end());
    w.targets.assign(d.targets.begin(), d.targets.end());
    w.loss.assign(d.loss.size(), 0.0);
    w.grad.assign(d.grad.size(), 0.0);
    fivsim::mlp_fit_batch_cpu(w.L, w.view(), threads, fivsim::MlpCpuMapping::network);
    const long np = d.L.param_count();
    double loss_rel = 0.0, grad_rel = 0.0;
    for (long b = 0; b < d.networks; ++b) {
      const double l = w.loss[static_cast<std::size_t>(b)];
      loss_rel = std::max(loss_rel, std::abs(static_cast<double>(d.loss[static_cast<std::size_t>(b)]) - l) /
                                        std::max(std::abs(l), 1e-300));
      double err = 0.0, big = 0.0;
      for (long k = 0; k < np; ++k) {
        const std::size_t at = static_cast<std::size_t>(b * np + k);
        err = std::max(err, std::abs(static_cast<double>(d.grad[at]) - w.grad[at]));
        big = std::max(big, std::abs(w.grad[at]));
      }
      grad_rel = std::max(grad_rel, err / std::max(big, 1e-300));
    }
    return {loss_rel, grad_rel};
  }
}

template <class T>
int run(const Args& a) {
  auto d =
      fivsim::test::make_fit_batch<T>(a.networks, a.points, a.inputs, std::vector<int>(a.depth, a.width), a.outputs);
  // CPU: a few evaluations (the CPU is the slow side) of each mapping (mlp_batch_policy.hpp), timed
  // on the wall clock; the policy's choice is reported as cpu_s
  const auto time_cpu = [&](fivsim::MlpCpuMapping mapping) {
    const int cpu_reps = 3;
    fivsim::mlp_fit_batch_cpu(d.L, d.view(), a.cpu_threads, mapping);
    const auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < cpu_reps; ++r) fivsim::mlp_fit_batch_cpu(d.L, d.view(), a.cpu_threads, mapping);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / cpu_reps;
  };
  const double cpu_network_s = time_cpu(fivsim::MlpCpuMapping::network);
  const double cpu_gemm_s = time_cpu(fivsim::MlpCpuMapping::gemm);
  const double cpu_s = time_cpu(fivsim::MlpCpuMapping::automatic);
  const double cpu_loss0 = static_cast<double>(d.loss[0]);
  // CUDA, each mapping of networks onto threads (mlp_batch.hpp): one warm-up, then `repeats`
  // launches between two events; the automatic choice is reported as gpu_s
  const auto time_gpu = [&](fivsim::MlpCudaMapping mapping, std::string& err) {
    double warm = 0.0, total = 0.0;
    err = fivsim::mlp_fit_batch_cuda(d.L, d.view(), 1, warm, mapping).error;
    if (err.empty()) err = fivsim::mlp_fit_batch_cuda(d.L, d.view(), a.repeats, total, mapping).error;
    return err.empty() ? total / a.repeats : 0.0;
  };
  std::string err, thread_err, group_err, points_err, gemm_err;
  const double gpu_s = time_gpu(fivsim::MlpCudaMapping::automatic, err);
  const double gpu_thread_s = time_gpu(fivsim::MlpCudaMapping::thread, thread_err);
  const double gpu_group_s = time_gpu(fivsim::MlpCudaMapping::group, group_err);
  const double gpu_points_s = time_gpu(fivsim::MlpCudaMapping::points, points_err);
  const double gpu_gemm_s = time_gpu(fivsim::MlpCudaMapping::gemm, gemm_err);
  // the last result's accuracy (the device's where it ran, else the CPU's) against double
  const bool gpu_ran = err.empty() || thread_err.empty() || group_err.empty() || points_err.empty() || gemm_err.empty();
  const auto [loss_rel, grad_rel] = against_double(d, a.cpu_threads);
  const long np = d.L.param_count();
  // flops of one network at one point: forward 2·W per weight, backward 4·W (gradient and delta)
  const double flops = 6.0 * static_cast<double>(np) * a.points * static_cast<double>(a.networks);
  std::printf(
      "{\"networks\": %ld, \"points\": %d, \"hidden\": \"%dx%d\", \"inputs\": %d, \"outputs\": %d, \"params\": %ld, "
      "\"precision\": \"%s\", \"cpu_threads\": %d, \"cpu_s\": %.6e, \"cpu_networks_per_s\": %.6e, "
      "\"cpu_network_s\": %.6e, \"cpu_gemm_s\": %.6e, \"cpu_mapping\": \"%s\", "
      "\"gpu\": %s, \"gpu_error\": \"%s\", \"gpu_s\": %.6e, \"gpu_networks_per_s\": %.6e, \"gpu_gflops\": %.4g, "
      "\"gpu_thread_s\": %.6e, \"gpu_group_s\": %.6e, \"gpu_points_s\": %.6e, \"gpu_gemm_s\": %.6e, "
      "\"loss0\": %.17g, \"gpu_loss0\": %.17g, \"against_double\": {\"of\": \"%s\", \"loss_rel\": %.3e, "
      "\"grad_rel\": %.3e}}\n",
      a.networks, a.points, a.width, a.depth, a.inputs, a.outputs, np, a.precision.c_str(),
      a.cpu_threads > 0 ? a.cpu_threads : omp_get_max_threads(), cpu_s, a.networks / cpu_s, cpu_network_s, cpu_gemm_s,
      fivsim::choose_cpu_mapping(fivsim::mlp_batch_shape(d.L, a.points)) == fivsim::MlpCpuMapping::gemm ? "gemm"
                                                                                                        : "network",
      err.empty() ? "true" : "false", err.c_str(), gpu_s, gpu_s > 0 ? a.networks / gpu_s : 0.0,
      gpu_s > 0 ? flops / gpu_s * 1e-9 : 0.0, gpu_thread_s, gpu_group_s, gpu_points_s, gpu_gemm_s, cpu_loss0,
      static_cast<double>(d.loss[0]), gpu_ran ? "gpu" : "cpu", loss_rel, grad_rel);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  if (a.train_steps > 0) return a.precision == "double" ? run_training<double>(a) : run_training<float>(a);
  return a.precision == "double" ? run<double>(a) : run<float>(a);
}

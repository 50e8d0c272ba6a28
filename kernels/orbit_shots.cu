// kernels/orbit_shots.cu — the CUDA backend of a continuation's shots (sweep/orbit_shooter.hpp):
// a batch of OrbitShot jobs (integrate/orbit_shot.hpp) on the device, persistent threads taking
// them from a queue as the sweeps' orbit pass takes its cases (sweep_batch.cuh), each thread with
// its OrbitWork in global scratch rather than local memory.
#include <stdexcept>
#include <map>
#include <tuple>

#include "fivsim/sweep/orbit_shooter.hpp"
#include "sweep_batch.cuh"

namespace fivsim {
namespace sweep {

// shot i on the models[owner[i]], with its settings and section
template <class D>
__global__ void orbit_shots_kernel(const Model<D>* __restrict__ models, const SwitchingSettings* __restrict__ settings,
                                   const SwitchingSection* __restrict__ sections, const int* __restrict__ owner,
                                   OrbitShot<D>* __restrict__ shots, long n, unsigned long long* queue,
                                   OrbitWork<D>* work) {
  OrbitWork<D>& w = work[static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x];
  for (long i = static_cast<long>(atomicAdd(queue, 1ull)); i < n; i = static_cast<long>(atomicAdd(queue, 1ull))) {
    const int k = owner[i];
    run_orbit_shot(models[k], settings[k], sections[k], shots[i], w);
  }
}

}  // namespace sweep

namespace {

template <class D>
class CudaOrbitShooter final : public OrbitShooter<D> {
 public:
  CudaOrbitShooter();
  ~CudaOrbitShooter() override;
  CudaOrbitShooter(const CudaOrbitShooter&) = delete;
  CudaOrbitShooter& operator=(const CudaOrbitShooter&) = delete;
  void shoot(const std::vector<ShotJob<D>>& jobs) override;

 private:
  struct Device;
  std::unique_ptr<Device> device_;
};

template <class D>
struct CudaOrbitShooter<D>::Device {
  sweep::DeviceBuffer<Model<D>> models;
  sweep::DeviceBuffer<SwitchingSettings> settings;
  sweep::DeviceBuffer<SwitchingSection> sections;
  sweep::DeviceBuffer<int> owner;
  sweep::DeviceBuffer<OrbitShot<D>> shots;
  sweep::DeviceBuffer<OrbitWork<D>> work;
  sweep::DeviceBuffer<unsigned long long> queue;
  std::vector<Model<D>> host_models;
  std::vector<SwitchingSettings> host_settings;
  std::vector<SwitchingSection> host_sections;
  std::vector<int> host_owner;
  std::vector<OrbitShot<D>> host_shots;
};

template <class D>
CudaOrbitShooter<D>::CudaOrbitShooter() : device_(std::make_unique<Device>()) {}
template <class D>
CudaOrbitShooter<D>::~CudaOrbitShooter() = default;

template <class D>
void CudaOrbitShooter<D>::shoot(const std::vector<ShotJob<D>>& jobs) {
  if (jobs.empty()) return;
  Device& d = *device_;
  // the distinct models a batch's shots run on (a branch's point and both sides of F_p: three)
  d.host_models.clear();
  d.host_settings.clear();
  d.host_sections.clear();
  d.host_owner.clear();
  d.host_shots.clear();
  std::map<std::tuple<const void*, const void*, const void*>, int> index;
  for (const ShotJob<D>& j : jobs) {
    const auto [at, fresh] =
        index.emplace(std::make_tuple(j.model, j.settings, j.section), static_cast<int>(d.host_models.size()));
    if (fresh) {
      d.host_models.push_back(*j.model);
      d.host_settings.push_back(*j.settings);
      d.host_sections.push_back(*j.section);
    }
    d.host_owner.push_back(at->second);
    d.host_shots.push_back(*j.shot);
  }
  const long n = static_cast<long>(jobs.size());
  const std::size_t m = d.host_models.size();
  const auto kernel = sweep::orbit_shots_kernel<D>;
  const unsigned grid = sweep::scratch_grid(kernel, sweep::kSweepBlock, n, sizeof(OrbitWork<D>));
  cudaError_t err = d.models.ensure(m);
  if (err == cudaSuccess) err = d.settings.ensure(m);
  if (err == cudaSuccess) err = d.sections.ensure(m);
  if (err == cudaSuccess) err = d.owner.ensure(static_cast<std::size_t>(n));
  if (err == cudaSuccess) err = d.shots.ensure(static_cast<std::size_t>(n));
  if (err == cudaSuccess) err = d.work.ensure(std::size_t{grid} * sweep::kSweepBlock);
  if (err == cudaSuccess) err = d.queue.ensure(1);
  if (err == cudaSuccess)
    err = cudaMemcpy(d.models.data, d.host_models.data(), sizeof(Model<D>) * m, cudaMemcpyHostToDevice);
  if (err == cudaSuccess)
    err = cudaMemcpy(d.settings.data, d.host_settings.data(), sizeof(SwitchingSettings) * m, cudaMemcpyHostToDevice);
  if (err == cudaSuccess)
    err = cudaMemcpy(d.sections.data, d.host_sections.data(), sizeof(SwitchingSection) * m, cudaMemcpyHostToDevice);
  if (err == cudaSuccess)
    err = cudaMemcpy(d.owner.data, d.host_owner.data(), sizeof(int) * static_cast<std::size_t>(n),
                     cudaMemcpyHostToDevice);
  if (err == cudaSuccess)
    err = cudaMemcpy(d.shots.data, d.host_shots.data(), sizeof(OrbitShot<D>) * static_cast<std::size_t>(n),
                     cudaMemcpyHostToDevice);
  if (err == cudaSuccess) err = cudaMemset(d.queue.data, 0, sizeof(unsigned long long));
  if (err != cudaSuccess)
    throw std::runtime_error(std::string("orbit shots on the device: ") + cudaGetErrorString(err));
  cudaGetLastError();  // an earlier call's error is not this launch's
  kernel<<<grid, sweep::kSweepBlock>>>(d.models.data, d.settings.data, d.sections.data, d.owner.data, d.shots.data, n,
                                       d.queue.data, d.work.data);
  err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err != cudaSuccess)
    throw std::runtime_error(
        "orbit shots on the device: " +
        sweep::launch_failure(err, reinterpret_cast<const void*>(kernel), "orbit shots " + sweep::dims_label<D>())
            .error);
  err = cudaMemcpy(d.host_shots.data(), d.shots.data, sizeof(OrbitShot<D>) * static_cast<std::size_t>(n),
                   cudaMemcpyDeviceToHost);
  if (err != cudaSuccess)
    throw std::runtime_error(std::string("orbit shots on the device: ") + cudaGetErrorString(err));
  for (long i = 0; i < n; ++i) *jobs[static_cast<std::size_t>(i)].shot = d.host_shots[static_cast<std::size_t>(i)];
}

}  // namespace

template <class D>
FIVSIM_CUDA_ORBIT_SHOOTER(D) {
  return std::make_unique<CudaOrbitShooter<D>>();
}

#define FIVSIM_ORBIT_SHOTS_CUDA_INSTANCE(D) template FIVSIM_CUDA_ORBIT_SHOOTER(D);
FIVSIM_SWEEP_DIMS_DOUBLE(FIVSIM_ORBIT_SHOTS_CUDA_INSTANCE)

}  // namespace fivsim

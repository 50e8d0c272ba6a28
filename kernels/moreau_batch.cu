// kernels/moreau_batch.cu — one thread per case running the shared Moreau stepper
// (integrate/moreau.hpp, seed 000 Eq. 8 with the LCPs of Eqs. 12, 14, 28).
#include <cuda_runtime.h>

#include <memory>

#include "moreau_batch.cuh"

namespace fivsim::batch::detail {
namespace {

__global__ void moreau_batch_kernel(const Model<SmallDims>* __restrict__ model, double dt, long steps,
                                    StepOptions opt, int n_cases, double* q, double* u, int* status) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= n_cases) return;
  const Model<SmallDims>& m = *model;
  State<SmallDims> s;
  s.q.resize(m.n_dof);
  s.u.resize(m.n_dof);
  for (int d = 0; d < m.n_dof; ++d) {
    s.q[d] = q[d * n_cases + c];
    s.u[d] = u[d * n_cases + c];
  }
  MoreauWorkspace<SmallDims> ws;
  Status st = Status::ok;
  for (long k = 1; k <= steps && st == Status::ok; ++k) {
    st = moreau_step(m, s, dt, opt, ws).status;
    s.t = static_cast<double>(k) * dt;
  }
  for (int d = 0; d < m.n_dof; ++d) {
    q[d * n_cases + c] = s.q[d];
    u[d * n_cases + c] = s.u[d];
  }
  status[c] = static_cast<int>(st);
}

struct DeviceFree {
  void operator()(void* p) const { cudaFree(p); }
};

template <class T>
using DevicePtr = std::unique_ptr<T, DeviceFree>;

template <class T>
DevicePtr<T> device_alloc(std::size_t count, cudaError_t& err) {
  void* p = nullptr;
  const cudaError_t e = cudaMalloc(&p, count * sizeof(T));
  if (e != cudaSuccess) err = e;
  return DevicePtr<T>(static_cast<T*>(p));
}

}  // namespace

bool query_cuda_device(std::string& description) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    description = err != cudaSuccess ? cudaGetErrorString(err) : "no CUDA device";
    return false;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  description = prop.name;
  return true;
}

std::string launch_moreau_batch(const Model<SmallDims>& model, double dt, long steps,
                                const StepOptions& options, int n_cases, double* q, double* u,
                                int* status) {
  const std::size_t n = static_cast<std::size_t>(model.n_dof) * n_cases;
  cudaError_t err = cudaSuccess;
  auto d_model = device_alloc<Model<SmallDims>>(1, err);
  auto d_q = device_alloc<double>(n, err);
  auto d_u = device_alloc<double>(n, err);
  auto d_status = device_alloc<int>(static_cast<std::size_t>(n_cases), err);
  if (err == cudaSuccess) err = cudaMemcpy(d_model.get(), &model, sizeof(model), cudaMemcpyHostToDevice);
  if (err == cudaSuccess) err = cudaMemcpy(d_q.get(), q, sizeof(double) * n, cudaMemcpyHostToDevice);
  if (err == cudaSuccess) err = cudaMemcpy(d_u.get(), u, sizeof(double) * n, cudaMemcpyHostToDevice);
  if (err != cudaSuccess) return cudaGetErrorString(err);
  const int block = 128;
  moreau_batch_kernel<<<(n_cases + block - 1) / block, block>>>(d_model.get(), dt, steps, options, n_cases,
                                                                d_q.get(), d_u.get(), d_status.get());
  err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err == cudaSuccess) err = cudaMemcpy(q, d_q.get(), sizeof(double) * n, cudaMemcpyDeviceToHost);
  if (err == cudaSuccess) err = cudaMemcpy(u, d_u.get(), sizeof(double) * n, cudaMemcpyDeviceToHost);
  if (err == cudaSuccess)
    err = cudaMemcpy(status, d_status.get(), sizeof(int) * n_cases, cudaMemcpyDeviceToHost);
  return err == cudaSuccess ? std::string() : std::string(cudaGetErrorString(err));
}

}  // namespace fivsim::batch::detail

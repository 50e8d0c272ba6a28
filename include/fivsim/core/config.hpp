// fivsim/core/config.hpp — the host/device marker and the compile-time capacities of the step path.
//
// Per-case physics is written once as FIVSIM_HD inline functions over plain structs whose
// sizes are fixed at compile time (docs/DESIGN.md §3); a Dims<T, NQ, NC> bundle names the scalar
// type, the largest number of degrees of freedom and the largest number of contacts.
#pragma once

#if defined(__CUDACC__)
#define FIVSIM_HD __host__ __device__
#else
#define FIVSIM_HD
#endif

// a large FIVSIM_HD function (an LCP solver) that device code compiles once per kernel and calls,
// instead of inlining it at every call site of every stepper: what it saves is the kernels'
// compile time (ptxas's grows faster than their size), at the cost of a call per solve
#if defined(__CUDA_ARCH__)
#define FIVSIM_HD_NOINLINE __host__ __device__ __noinline__
#else
#define FIVSIM_HD_NOINLINE FIVSIM_HD
#endif

// a small FIVSIM_HD function of the host's step path that the compiler would leave a call: inlined,
// its result stays in registers (a returned struct goes through memory, and read back in wider
// pieces than it was stored in it waits for the stores to retire)
#if defined(__CUDA_ARCH__) || !defined(__GNUC__)
#define FIVSIM_HD_INLINE_ON_HOST FIVSIM_HD inline
#else
#define FIVSIM_HD_INLINE_ON_HOST FIVSIM_HD inline __attribute__((always_inline))
#endif

// a loop that device code must unroll whole: arrays it indexes by its counter then stay in
// registers (nvcc leaves a loop with a large body rolled, and the arrays in local memory)
#if defined(__CUDA_ARCH__)
#define FIVSIM_UNROLL _Pragma("unroll")
#else
#define FIVSIM_UNROLL
#endif

namespace fivsim {

using real = double;

// capacities of one instantiation of the step path: NQ degrees of freedom, NC contacts,
// and at most 3 LCP unknowns per contact (seed 000 Eq. 12: Λ_N, Λ_L, γ_R). An exact
// instantiation holds models of exactly NQ DoF and NC contacts: the sizes are then compile-time
// constants, loops unroll and a case's arrays can live in registers (the batch kernels)
template <class T, int NQ, int NC, bool Exact = false>
struct Dims {
  using scalar = T;
  static constexpr int max_dof = NQ;
  static constexpr int max_contacts = NC;
  static constexpr int max_lcp = 3 * NC;
  static constexpr bool exact = Exact;
};

// the generic host instantiation: any model the scenario parser accepts fits in it
inline constexpr int kHostMaxDof = 32;
inline constexpr int kHostMaxContacts = 32;
using HostDims = Dims<double, kHostMaxDof, kHostMaxContacts>;

}  // namespace fivsim

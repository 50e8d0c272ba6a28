// fivsim/integrate/switching_lyapunov.hpp — Lyapunov exponents of a switching run from its
// variational equations (switching_tangent.hpp), as per-case FIVSIM_HD code.
//
// Benettin, Galgani, Giorgilli & Strelcyn (Meccanica 15, 1980) with the saltation matrices of
// Müller (Chaos, Solitons & Fractals 5, 1995): the first k columns of Φ are carried along the run,
// re-orthonormalised (modified Gram–Schmidt, Φ = QR) every `interval` seconds, and the j-th
// exponent is the time average of log R_jj. Unlike a twin trajectory, nothing is perturbed, so an
// event cannot bias the estimate; a sticking phase that annihilates a direction gives R_jj = 0, an
// exponent of −∞ (a Floquet multiplier of exactly zero). The error estimate is the standard error of
// the mean over ten equal blocks of the averaging window.
#pragma once

#include "fivsim/integrate/switching_tangent.hpp"

namespace fivsim {

struct LyapunovSpectrum {
  static constexpr int kMax = 8;      // exponents at most
  static constexpr int kBlocks = 10;  // blocks of the error estimate
  int count = 0;
  double exponent[kMax] = {};  // 1/s, largest first; −HUGE_VAL for an annihilated direction
  double error[kMax] = {};     // standard error of each (HUGE_VAL where undefined)
  double time = 0.0;           // the averaging window's length
  long renormalizations = 0;
  long saltations = 0, grazing = 0;
};

namespace lyapunov_detail {

// modified Gram–Schmidt on Φ's first k columns; log R_jj into logs (−HUGE_VAL for a zero column,
// which is then left at zero)
template <class D>
FIVSIM_HD inline void orthonormalise(SwitchingTangent<D>& tan, int ny, int k, double* logs) {
  using T = typename D::scalar;
  for (int j = 0; j < k; ++j) {
    for (int i = 0; i < j; ++i) {
      T dot = T(0);
      for (int r = 0; r < ny; ++r) dot += tan.phi[r][i] * tan.phi[r][j];
      for (int r = 0; r < ny; ++r) tan.phi[r][j] -= dot * tan.phi[r][i];
    }
    T norm2 = T(0);
    for (int r = 0; r < ny; ++r) norm2 += tan.phi[r][j] * tan.phi[r][j];
    const double norm = sqrt(static_cast<double>(norm2));
    if (norm > 0.0) {
      logs[j] = log(norm);
      for (int r = 0; r < ny; ++r) tan.phi[r][j] = T(tan.phi[r][j] / T(norm));
    } else {
      logs[j] = -HUGE_VAL;
      for (int r = 0; r < ny; ++r) tan.phi[r][j] = T(0);
    }
  }
  // the columns beyond k are not followed
  for (int r = 0; r < ny; ++r)
    for (int j = k; j < ny; ++j) tan.phi[r][j] = T(0);
}

}  // namespace lyapunov_detail

// the k largest exponents (k ≤ min(2·dof, 8)) of the run from (t0, q0, u0): the motion up to
// t_transient is left out, then Φ is followed to t_end and re-orthonormalised every `interval`
// seconds. Returns the run's status
template <class D>
FIVSIM_HD inline Status switching_lyapunov(const Model<D>& m, const SwitchingSettings& set, SwitchingWorkspace<D>& ws,
                                           SwitchingTangent<D>& tan, double t0, const typename D::scalar* q0,
                                           const typename D::scalar* u0, double t_transient, double t_end,
                                           double interval, int k, LyapunovSpectrum& out) {
  using T = typename D::scalar;
  namespace ld = lyapunov_detail;
  const int ny = 2 * dof_count(m);
  k = k < ny ? k : ny;
  k = k < LyapunovSpectrum::kMax ? k : LyapunovSpectrum::kMax;
  out = LyapunovSpectrum();
  out.count = k;
  auto sink = [](const SwitchingEvent<T>&) {};
  ws.started = false;
  Status st = switching_start(m, set, SwitchingSection{}, ws, t0, q0, u0, false, sink);
  if (st == Status::ok && t_transient > t0) st = switching_advance(m, set, SwitchingSection{}, ws, t_transient, sink);
  if (st != Status::ok) return st;
  double sum[LyapunovSpectrum::kMax] = {}, block_sum[LyapunovSpectrum::kBlocks][LyapunovSpectrum::kMax] = {};
  double logs[LyapunovSpectrum::kMax];
  tangent_reset(m, tan);
  ld::orthonormalise(tan, ny, k, logs);  // Φ = I: only zeroes the columns not followed
  tan.cols = k;
  TangentHooks<D> hooks{tan};
  const double start = ws.t;
  const double span = t_end - start;
  for (double t = t_transient; t < t_end;) {
    t = t + interval < t_end ? t + interval : t_end;
    st = switching_advance(m, set, SwitchingSection{}, ws, t, sink, hooks);
    if (st != Status::ok) return st;
    if (!hooks.ok) return Status::nonfinite;
    // Φ holds at ws.t, the held step's start
    ld::orthonormalise(tan, ny, k, logs);
    ++out.renormalizations;
    int block = span > 0.0 ? static_cast<int>(LyapunovSpectrum::kBlocks * (ws.t - start) / span) : 0;
    block = block < LyapunovSpectrum::kBlocks ? block : LyapunovSpectrum::kBlocks - 1;
    for (int j = 0; j < k; ++j) {
      sum[j] += logs[j];
      block_sum[block][j] += logs[j];
    }
  }
  out.time = ws.t - start;
  out.saltations = tan.saltations;
  out.grazing = tan.grazing;
  const double block_time = out.time / LyapunovSpectrum::kBlocks;
  for (int j = 0; j < k; ++j) {
    out.exponent[j] = out.time > 0.0 ? sum[j] / out.time : 0.0;
    // the blocks' exponents and the standard error of their mean
    double mean = 0.0, sq = 0.0;
    bool finite = block_time > 0.0;
    for (int b = 0; b < LyapunovSpectrum::kBlocks && finite; ++b) {
      const double e = block_sum[b][j] / block_time;
      finite = e > -HUGE_VAL;
      mean += e;
      sq += e * e;
    }
    const int nb = LyapunovSpectrum::kBlocks;
    mean /= nb;
    const double var = finite ? (sq / nb - mean * mean) * nb / (nb - 1) : 0.0;
    out.error[j] = finite ? sqrt((var > 0.0 ? var : 0.0) / nb) : HUGE_VAL;
  }
  return Status::ok;
}

}  // namespace fivsim

// fivsim/cases/case_batch.hpp — the cases of one backend call as the per-case code reads them
// (CaseBatch: one setup shared or one per case, each case's row of swept values) and the
// instantiations a sweep's model runs on, listed once (FIVSIM_SWEEP_DIMS_OF) for the type list a
// model is offered to and for the explicit instantiations of every backend. Plain structs and
// FIVSIM_HD code: the kernels and the CPU backend include it alike.
#pragma once

#include "fivsim/cases/case_runner.hpp"
#include "fivsim/cases/parameter_slots.hpp"

namespace fivsim {

// the instantiations, in the order a model is offered to them: exactly 1, 2 or 5 DoF and
// contacts, then up to 2, 8, or 24 DoF with 8 contacts (24 LCP unknowns); X(D) for each in scalar T
#define FIVSIM_SWEEP_DIMS_OF(X, T) \
  X(SweepDims1<T>) X(SweepDimsExact2<T>) X(SweepDimsExact5<T>) X(SweepDims2<T>) X(SweepDims8<T>) X(SweepDimsGeneric<T>)
#define FIVSIM_SWEEP_DIMS_DOUBLE(X) FIVSIM_SWEEP_DIMS_OF(X, double)
#define FIVSIM_SWEEP_DIMS_FLOAT(X) FIVSIM_SWEEP_DIMS_OF(X, float)
#define FIVSIM_SWEEP_FOR_EACH_DIMS(X) FIVSIM_SWEEP_DIMS_DOUBLE(X) FIVSIM_SWEEP_DIMS_FLOAT(X)
#define FIVSIM_SWEEP_DIMS_COMMA(D) D,

// the instantiations of the batch path: models of exactly 1, 2 or 5 DoF and contacts, and
// models up to 2, 8, or 24 DoF with 8 contacts (24 LCP unknowns). Exact sizes (as many contacts
// as DoF: sliders on a belt) unroll every loop and run the belt runner where they can; the others
// hold any model up to their capacity
template <class T>
using SweepDims1 = Dims<T, 1, 1, true>;
template <class T>
using SweepDimsExact2 = Dims<T, 2, 2, true>;
template <class T>
using SweepDimsExact5 = Dims<T, 5, 5, true>;
template <class T>
using SweepDims2 = Dims<T, 2, 2>;
template <class T>
using SweepDims8 = Dims<T, 8, 8>;
template <class T>
using SweepDimsGeneric = Dims<T, 24, 8>;

// the cases of one backend call: the sweep's one setup (stride 0) with each case's row written in
// by the backend, or each case's own setup (stride 1) where the plan makes them on the host; the
// same for the Runge–Kutta step maps (null for Moreau)
template <class D>
struct CaseBatch {
  long n = 0;
  const CaseSetup<D>* setups = nullptr;
  long setup_stride = 0;
  const RkStepMap<D>* maps = nullptr;
  long map_stride = 0;
  SlotTargets targets;           // written per case into the setup (none where setups are per case)
  const double* rows = nullptr;  // swept parameter k of case c at rows[k * row_stride + c]
  long row_stride = 0;
  int n_params = 0;
  double stick_tol = 0.0;
  bool switching = false;  // the switching integrator (integrator.method switching), not a time stepper
  SwitchingSettings switching_settings;

  FIVSIM_HD const RkStepMap<D>* map(long c) const { return maps ? maps + c * map_stride : nullptr; }
  // case c's setup: the one in the batch, or `scratch` made from it and the case's row
  FIVSIM_HD const CaseSetup<D>& setup(long c, CaseSetup<D>& scratch) const {
    const CaseSetup<D>& s = setups[c * setup_stride];
    if (targets.n == 0) return s;
    scratch = s;
    apply_row(targets, rows + c, row_stride, typename D::scalar(stick_tol), scratch.model, scratch.start);
    return scratch;
  }
  // cases [at, at + count) as a batch of their own
  FIVSIM_HD CaseBatch part(long at, long count) const {
    CaseBatch b = *this;
    b.n = count;
    b.setups = setups + at * setup_stride;
    b.maps = maps ? maps + at * map_stride : nullptr;
    b.rows = rows ? rows + at : nullptr;
    return b;
  }
};

// the instantiations as a type list, in the order a model is offered to them: it runs on the
// first that holds it (FIVSIM_SWEEP_FOR_EACH_DIMS below instantiates the same list)
template <class... Ds>
struct DimsList {};
// the end of a list made from FIVSIM_SWEEP_DIMS_OF (each entry followed by a comma)
struct EndOfDims {};
template <class T>
using SweepInstantiations = DimsList<FIVSIM_SWEEP_DIMS_OF(FIVSIM_SWEEP_DIMS_COMMA, T) EndOfDims>;

template <class D>
FIVSIM_HD constexpr bool holds_model(int n_dof, int n_contacts) {
  return D::exact ? n_dof == D::max_dof && n_contacts == D::max_contacts
                  : n_dof <= D::max_dof && n_contacts <= D::max_contacts;
}

template <class D>
struct DimsTag {
  using type = D;
};

#ifndef __CUDACC_RTC__
// calls f(DimsTag<D>{}) with the first instantiation of the list that holds the model; false
// when none does
template <class F, class D, class... Rest>
bool with_instantiation(DimsList<D, Rest...>, int n_dof, int n_contacts, F&& f) {
  if constexpr (sizeof...(Rest) == 0)  // D is the list's EndOfDims
    return false;
  else if (holds_model<D>(n_dof, n_contacts)) {
    f(DimsTag<D>{});
    return true;
  }
  if constexpr (sizeof...(Rest) > 0)
    return with_instantiation(DimsList<Rest...>{}, n_dof, n_contacts, f);
  else
    return false;
}

#endif  // the host chooses the instantiation

}  // namespace fivsim

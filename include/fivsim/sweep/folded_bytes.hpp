// fivsim/sweep/folded_bytes.hpp — the bytes of the plain structs a specialised kernel folds in
// (sweep/kernel_source.hpp), made a function of their values alone: each member is written at its
// offset into zeroed bytes, so that padding, and a vector's or matrix's entries past its size
// (which are not its values, core/small_linalg.hpp), read zero whatever the memory held. The
// same scenario then gives the same source and the same kernel cache entry in every run; a raw
// copy carries whatever the stack held (and GCC 12's __builtin_clear_padding leaves some padding
// after arrays of structs). Each struct's members are listed below in declaration order: a member
// a struct gains belongs in its list (FoldedBytes.EveryListCoversItsStruct checks the lists
// against the structs' layouts).
#pragma once

#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "fivsim/cases/belt_runner.hpp"
#include "fivsim/cases/case_batch.hpp"
#include "fivsim/pinn/mlp.hpp"
#include "fivsim/pinn/optimizer.hpp"

namespace fivsim::sweep {

class FoldedBytes {
 public:
  // a member: at its offset in the root
  struct Leaf {
    std::size_t offset, size, align;
  };

  template <class T>
  explicit FoldedBytes(const T& root)
      : root_(reinterpret_cast<const unsigned char*>(&root)), bytes_(sizeof(T), 0), root_align_(alignof(T)) {
    static_assert(std::is_trivially_copyable_v<T>);
    put(root);
  }
  const std::vector<unsigned char>& bytes() const { return bytes_; }
  const std::vector<Leaf>& leaves() const { return leaves_; }
  // every member put, structs and arrays too (whose alignment may exceed their first leaf's)
  const std::vector<Leaf>& starts() const { return starts_; }
  std::size_t root_align() const { return root_align_; }

  // x (a member of the root, at any depth): an array element by element, a listed struct member by
  // member (put_fields below), a scalar as it is
  template <class T>
  void put(const T& x) {
    starts_.push_back({offset_of(&x), sizeof(T), alignof(T)});
    if constexpr (std::is_array_v<T>) {
      for (const auto& e : x) put(e);
    } else if constexpr (requires { put_fields(*this, x); }) {
      put_fields(*this, x);
    } else {
      static_assert(std::is_scalar_v<T>, "a struct a kernel folds needs its members listed (folded_bytes.hpp)");
      const std::size_t at = offset_of(&x);
      std::memcpy(bytes_.data() + at, &x, sizeof(T));
      leaves_.push_back({at, sizeof(T), alignof(T)});
    }
  }
  template <class... M>
  void put_all(const M&... m) {
    (put(m), ...);
  }
  // the first `count` of an array's entries (the rest are not the value's)
  template <class T, std::size_t N>
  void put_first(const T (&a)[N], long count) {
    for (long i = 0; i < count && i < static_cast<long>(N); ++i) put(a[i]);
  }

 private:
  std::size_t offset_of(const void* p) const {
    return static_cast<std::size_t>(reinterpret_cast<const unsigned char*>(p) - root_);
  }
  const unsigned char* root_;
  std::vector<unsigned char> bytes_;
  std::vector<Leaf> leaves_, starts_;
  std::size_t root_align_;
};

// the members, in declaration order

template <class T, int Cap>
void put_fields(FoldedBytes& f, const Vec<T, Cap>& v) {
  f.put(v.n);
  f.put_first(v.v, v.n);
}

template <class T, int R, int C>
void put_fields(FoldedBytes& f, const Mat<T, R, C>& m) {
  f.put_all(m.rows, m.cols);
  for (int i = 0; i < m.rows && i < (R > 0 ? R : 1); ++i)
    for (int j = 0; j < m.cols && j < (C > 0 ? C : 1); ++j) f.put(m(i, j));
}

inline void put_fields(FoldedBytes& f, const FrictionLaw& l) { f.put_all(l.kind, l.p); }

template <class D>
void put_fields(FoldedBytes& f, const Model<D>& m) {
  f.put_all(m.n_dof, m.n_contacts, m.n_normal, m.M, m.Minv, m.C, m.K, m.f0, m.f_sin, m.f_cos, m.omega, m.WN, m.WT,
            m.GNN, m.GNT, m.GTN, m.GTT);
  // the contacts' own entries: a model has n_contacts of them
  f.put_first(m.kind, m.n_contacts);
  f.put_first(m.kc, m.n_contacts);
  f.put_first(m.v_surface, m.n_contacts);
  f.put_first(m.Fn, m.n_contacts);
  f.put_first(m.gap0, m.n_contacts);
  f.put_first(m.law, m.n_contacts);
  f.put_first(m.normal_slot, m.n_contacts);
  f.put(m.decoupled_friction);
}

template <class D>
void put_fields(FoldedBytes& f, const CaseSetup<D>& s) {
  f.put(s.model);
  f.put_all(s.start.t, s.start.q, s.start.u, s.start.lamN, s.start.lamT);
  f.put_first(s.start.contact, s.model.n_contacts);
  f.put_all(s.dt, s.steps, s.t_transient);
}

inline void put_fields(FoldedBytes& f, const SweepAnalysis& a) {
  f.put_all(a.section, a.contact, a.dof, a.value, a.direction, a.period, a.periodic_tol, a.max_period, a.capacity,
            a.lyapunov_every, a.lyapunov_d0, a.lyapunov_zero, a.chaos_window, a.confirmations, a.adaptive, a.observers,
            a.reference, a.reference_n, a.reference_dof, a.keep_residuals);
}

inline void put_fields(FoldedBytes& f, const LcpOptions& o) {
  f.put_all(o.max_iterations, o.tolerance, o.pivot_tolerance, o.use_basis_hint, o.basis_hint);
}

inline void put_fields(FoldedBytes& f, const StepOptions& o) {
  f.put_all(o.solver, o.lcp, o.stick_tol, o.force_tol, o.closed_form_decoupled);
}

inline void put_fields(FoldedBytes& f, const SwitchingSettings& s) {
  f.put_all(s.rel_tol, s.abs_tol, s.event_tol, s.max_step);
}

inline void put_fields(FoldedBytes& f, const SlotTarget& t) { f.put_all(t.kind, t.index, t.param, t.column); }

inline void put_fields(FoldedBytes& f, const SlotTargets& t) {
  f.put(t.n);
  f.put_first(t.t, t.n);
}

template <class D>
void put_fields(FoldedBytes& f, const CaseBatch<D>& b) {
  f.put_all(b.n, b.setups, b.setup_stride, b.maps, b.map_stride, b.targets, b.rows, b.row_stride, b.n_params,
            b.stick_tol, b.switching, b.switching_settings);
}

template <class D>
void put_fields(FoldedBytes& f, const BeltModel<D>& b) {
  f.put_all(b.minv, b.C, b.K, b.f0, b.f_sin, b.f_cos, b.omega, b.f_still, b.law, b.Fn, b.v_surface, b.q0, b.u0, b.dt,
            b.t_transient, b.steps);
}

// a PINN sweep's dynamic network and its optimizer (the widths past the output layer are not the
// layout's)
inline void put_fields(FoldedBytes& f, const MlpLayout& L) {
  f.put(L.layers);
  f.put_first(L.width, static_cast<long>(L.layers) + 1);
  f.put_all(L.hidden, L.output, L.c1, L.c2);
}

inline void put_fields(FoldedBytes& f, const OptimizerOptions& o) {
  f.put_all(o.kind, o.max_iter, o.tol, o.history, o.adam_iter, o.learning_rate, o.beta1, o.beta2, o.epsilon);
}

}  // namespace fivsim::sweep

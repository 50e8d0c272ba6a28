// fivsim/lcp/lcp_solve.hpp — picks one of the LCP solvers by name; they share one signature.
#pragma once

#include "fivsim/lcp/lcp_enum.hpp"
#include "fivsim/lcp/lcp_lemke.hpp"
#include "fivsim/lcp/lcp_pgs.hpp"

namespace fivsim {

enum class LcpSolverKind : int { lemke = 0, pgs = 1, enumerate = 2 };

FIVSIM_HD inline const char* lcp_solver_name(LcpSolverKind k) {
  switch (k) {
    case LcpSolverKind::lemke:
      return "lemke";
    case LcpSolverKind::pgs:
      return "pgs";
    case LcpSolverKind::enumerate:
      return "enum";
  }
  return "unknown";
}

// the classical solvers' large temporaries, kept by a caller that gives them scratch (lcp.hpp):
// Lemke's dictionary and its re-solve's answer, and the basis solve's matrix
template <class T, int Cap>
struct LcpScratch {
  LemkeDictionary<T, Cap> dictionary;
  LcpVector<T, Cap> x, y;
  Mat<T, Cap, Cap> basis;
  Vec<T, Cap> rhs;
};

// scratch: LcpOwnStack, or an LcpScratch<T, Cap>* (PGS needs none)
template <class T, int Cap, class Scratch = LcpOwnStack>
FIVSIM_HD_INLINE_ON_HOST LcpResult lcp_solve(LcpSolverKind kind, const LcpMatrix<T, Cap>& A, const LcpVector<T, Cap>& b,
                                             LcpVector<T, Cap>& x, LcpVector<T, Cap>& y, const LcpOptions& opt = {},
                                             Scratch scratch = {}) {
  switch (kind) {
    case LcpSolverKind::pgs:
      return pgs_solve(A, b, x, y, opt);
    case LcpSolverKind::enumerate:
      return enum_solve(A, b, x, y, opt, scratch);
    case LcpSolverKind::lemke:
    default:
      return lemke_solve(A, b, x, y, opt, scratch);
  }
}

// the classical solver of `kind` as a functor, for steppers that take any solver (a PINN one too)
struct ClassicalLcpSolver {
  LcpSolverKind kind = LcpSolverKind::lemke;
  template <class T, int Cap>
  FIVSIM_HD LcpResult operator()(const LcpMatrix<T, Cap>& A, const LcpVector<T, Cap>& b, LcpVector<T, Cap>& x,
                                 LcpVector<T, Cap>& y, const LcpOptions& o) const {
    return lcp_solve(kind, A, b, x, y, o);
  }
};

// the same with the solver's temporaries in the caller's scratch (device kernels over large LCPs)
template <class T, int Cap>
struct ClassicalLcpSolverIn {
  LcpSolverKind kind = LcpSolverKind::lemke;
  LcpScratch<T, Cap>* scratch = nullptr;
  FIVSIM_HD LcpResult operator()(const LcpMatrix<T, Cap>& A, const LcpVector<T, Cap>& b, LcpVector<T, Cap>& x,
                                 LcpVector<T, Cap>& y, const LcpOptions& o) const {
    return lcp_solve(kind, A, b, x, y, o, scratch);
  }
};

}  // namespace fivsim

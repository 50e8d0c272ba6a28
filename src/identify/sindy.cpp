// src/identify/sindy.cpp — SINDy library, STLSQ and SR3 (identify/sindy.hpp; seed 003 Eqs. 7–10).
#include "fivsim/identify/sindy.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace fivsim {
namespace {

// the functions a factor applies to its variable, by FactorFn (power and decay are written apart)
constexpr const char* kFactorFns[] = {"", "sgn", "abs", "sin", "cos"};

int variable_index(const std::string& name) {
  for (int v = 0; v < kSindyVars; ++v)
    if (name == kSindyVarNames[v]) return v;
  throw std::invalid_argument("unknown variable '" + name + "' (x1, x2, u, du, w)");
}

// "exp(-a*abs(v))": a decay at rate a > 0 of variable v
bool parse_decay(const std::string& f, TermFactor& out) {
  const std::string head = "exp(-";
  if (f.rfind(head, 0) != 0) return false;
  const std::size_t star = f.find("*abs(", head.size());
  if (star == std::string::npos || f.size() < star + 7 || f.compare(f.size() - 2, 2, "))") != 0)
    throw std::invalid_argument("'" + f + "': a decay is written exp(-a*abs(v)), a > 0 a number and v a variable");
  const std::string rate = f.substr(head.size(), star - head.size());
  char* end = nullptr;
  out.rate = std::strtod(rate.c_str(), &end);
  if (rate.empty() || end != rate.c_str() + rate.size() || !(out.rate > 0.0) || !std::isfinite(out.rate))
    throw std::invalid_argument("'" + f + "': the decay rate '" + rate + "' must be a positive number");
  out.fn = FactorFn::decay;
  out.var = static_cast<SindyVar>(variable_index(f.substr(star + 5, f.size() - star - 7)));
  return true;
}

std::string rate_text(double rate) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", rate);
  return text;
}

TermFactor parse_factor(const std::string& f) {
  TermFactor out;
  if (parse_decay(f, out)) return out;
  for (int k = static_cast<int>(FactorFn::sgn); k <= static_cast<int>(FactorFn::cos); ++k) {
    const std::string head = std::string(kFactorFns[k]) + "(";
    if (f.rfind(head, 0) == 0) {
      if (f.back() != ')') throw std::invalid_argument("'" + f + "' lacks its closing parenthesis");
      out.fn = static_cast<FactorFn>(k);
      out.var = static_cast<SindyVar>(variable_index(f.substr(head.size(), f.size() - head.size() - 1)));
      return out;
    }
  }
  const std::size_t caret = f.find('^');
  out.var = static_cast<SindyVar>(variable_index(f.substr(0, caret)));
  if (caret != std::string::npos) {
    const std::string p = f.substr(caret + 1);
    if (p.empty() || p.find_first_not_of("0123456789") != std::string::npos || std::stoi(p) < 1 || std::stoi(p) > 9)
      throw std::invalid_argument("'" + f + "': the power must be a whole number from 1 to 9");
    out.power = std::stoi(p);
  }
  return out;
}

// column scales for normalised coordinates: the rms of each column (1 for a zero column)
Eigen::VectorXd column_scales(const Eigen::MatrixXd& theta) {
  Eigen::VectorXd s(theta.cols());
  for (long j = 0; j < theta.cols(); ++j) {
    const double rms = std::sqrt(theta.col(j).squaredNorm() / static_cast<double>(std::max<long>(1, theta.rows())));
    s(j) = rms > 0.0 ? rms : 1.0;
  }
  return s;
}

// ridge least squares of y on the columns `support` of A (normalised), other entries zero
Eigen::VectorXd fit_on_support(const Eigen::MatrixXd& A, const Eigen::VectorXd& y, const std::vector<int>& support,
                               double alpha) {
  Eigen::VectorXd xi = Eigen::VectorXd::Zero(A.cols());
  if (support.empty()) return xi;
  const long n = static_cast<long>(support.size());
  Eigen::MatrixXd As(A.rows() + (alpha > 0.0 ? n : 0), n);
  Eigen::VectorXd ys = Eigen::VectorXd::Zero(As.rows());
  ys.head(A.rows()) = y;
  for (long k = 0; k < n; ++k) As.col(k).head(A.rows()) = A.col(support[k]);
  if (alpha > 0.0) As.bottomRows(n) = std::sqrt(alpha) * Eigen::MatrixXd::Identity(n, n);
  const Eigen::VectorXd sol = As.completeOrthogonalDecomposition().solve(ys);
  for (long k = 0; k < n; ++k) xi(support[k]) = sol(k);
  return xi;
}

}  // namespace

LibraryTerm parse_library_term(const std::string& text) {
  LibraryTerm term;
  std::string s;
  for (char c : text)
    if (c != ' ') s += c;
  term.name = s;
  if (s.empty()) throw std::invalid_argument("an empty term");
  if (s == "1") return term;
  // factors split at the stars outside parentheses (a decay's rate multiplies inside its own)
  const auto next_star = [&](std::size_t from) {
    int depth = 0;
    for (std::size_t i = from; i < s.size(); ++i) {
      depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
      if (s[i] == '*' && depth == 0) return i;
    }
    return std::string::npos;
  };
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t star = next_star(start);
    const std::string f = s.substr(start, star == std::string::npos ? std::string::npos : star - start);
    if (f.empty()) throw std::invalid_argument("'" + text + "' has an empty factor");
    term.factors.push_back(parse_factor(f));
    if (star == std::string::npos) break;
    start = star + 1;
  }
  return term;
}

std::vector<LibraryTerm> polynomial_terms(int degree, bool with_input, bool constant) {
  const int nv = with_input ? 4 : 2;
  std::vector<LibraryTerm> out;
  // exponent vectors of total degree d, in lexicographic order of the variables
  for (int d = 1; d <= degree; ++d) {
    std::vector<int> e(nv, 0);
    auto emit = [&](auto&& self, int var, int left) -> void {
      if (var == nv - 1) {
        e[var] = left;
        std::string name;
        LibraryTerm t;
        for (int v = 0; v < nv; ++v) {
          if (e[v] == 0) continue;
          if (!name.empty()) name += "*";
          name += kSindyVarNames[v];
          if (e[v] > 1) {
            name += '^';  // two appends: GCC 12 warns falsely (-Wrestrict) on "^" + std::string
            name += std::to_string(e[v]);
          }
          t.factors.push_back({static_cast<SindyVar>(v), FactorFn::power, e[v]});
        }
        t.name = name;
        out.push_back(t);
        return;
      }
      for (int k = left; k >= 0; --k) {
        e[var] = k;
        self(self, var + 1, left - k);
      }
    };
    emit(emit, 0, d);
  }
  if (constant) out.push_back(LibraryTerm{"1", {}});
  return out;
}

double evaluate_term(const LibraryTerm& term, const double* x) {
  double value = 1.0;
  for (const TermFactor& f : term.factors) {
    const double a = x[static_cast<int>(f.var)];
    switch (f.fn) {
      case FactorFn::power:
        value *= f.power == 1 ? a : std::pow(a, f.power);
        break;
      case FactorFn::sgn:
        value *= a > 0.0 ? 1.0 : (a < 0.0 ? -1.0 : 0.0);
        break;
      case FactorFn::abs:
        value *= std::abs(a);
        break;
      case FactorFn::sin:
        value *= std::sin(a);
        break;
      case FactorFn::cos:
        value *= std::cos(a);
        break;
      case FactorFn::decay:
        value *= std::exp(-f.rate * std::abs(a));
        break;
    }
  }
  return value;
}

LibraryTerm with_decay_rate(const LibraryTerm& term, double rate) {
  LibraryTerm out = term;
  std::string name;
  for (TermFactor& f : out.factors) {
    if (f.fn == FactorFn::decay) f.rate = rate;
    if (!name.empty()) name += "*";
    const std::string v = kSindyVarNames[static_cast<int>(f.var)];
    switch (f.fn) {
      case FactorFn::power:
        name += f.power == 1 ? v : v + "^" + std::to_string(f.power);
        break;
      case FactorFn::decay:
        name += "exp(-" + rate_text(f.rate) + "*abs(" + v + "))";
        break;
      default:
        name += std::string(kFactorFns[static_cast<int>(f.fn)]) + "(" + v + ")";
    }
  }
  out.name = out.factors.empty() ? "1" : name;
  return out;
}

std::vector<std::string> collinear_terms(const std::vector<LibraryTerm>& terms, const Eigen::MatrixXd& theta,
                                         double tol) {
  std::vector<std::string> out;
  std::vector<long> kept;
  for (long j = 0; j < theta.cols(); ++j) {
    const Eigen::VectorXd col = theta.col(j);
    const double norm = col.norm();
    if (norm == 0.0) {
      out.push_back("'" + terms[static_cast<std::size_t>(j)].name + "' is zero on every sample");
      continue;
    }
    if (!kept.empty()) {
      Eigen::MatrixXd A(theta.rows(), static_cast<long>(kept.size()));
      for (std::size_t k = 0; k < kept.size(); ++k) A.col(static_cast<long>(k)) = theta.col(kept[k]);
      const Eigen::VectorXd coef = A.colPivHouseholderQr().solve(col);
      if ((A * coef - col).norm() <= tol * norm) {
        // name the earlier terms it is made of
        std::string with;
        const double big = coef.cwiseAbs().maxCoeff();
        for (std::size_t k = 0; k < kept.size(); ++k)
          if (std::abs(coef(static_cast<long>(k))) > 1e-6 * big)
            with += (with.empty() ? "" : ", ") + terms[static_cast<std::size_t>(kept[k])].name;
        out.push_back("'" + terms[static_cast<std::size_t>(j)].name + "' is collinear with " + with);
        continue;
      }
    }
    kept.push_back(j);
  }
  return out;
}

Eigen::MatrixXd evaluate_library(const std::vector<LibraryTerm>& terms, const Eigen::MatrixXd& X) {
  if (X.cols() != kSindyVars) throw std::invalid_argument("evaluate_library: X needs 5 columns (x1, x2, u, du, w)");
  Eigen::MatrixXd theta(X.rows(), static_cast<long>(terms.size()));
  for (long i = 0; i < X.rows(); ++i) {
    const double x[kSindyVars] = {X(i, 0), X(i, 1), X(i, 2), X(i, 3), X(i, 4)};
    for (std::size_t j = 0; j < terms.size(); ++j) theta(i, static_cast<long>(j)) = evaluate_term(terms[j], x);
  }
  return theta;
}

SindyFit sindy_fit(const Eigen::MatrixXd& theta, const Eigen::MatrixXd& dX, const SindyOptions& o) {
  if (theta.rows() != dX.rows() || theta.rows() < 1)
    throw std::invalid_argument("sindy_fit: Θ and Ẋ need the same, non-zero number of rows");
  if (o.optimizer != "stlsq" && o.optimizer != "sr3" && o.optimizer != "lasso")
    throw std::invalid_argument("sindy_fit: unknown optimizer '" + o.optimizer + "'");
  const long p = theta.cols();
  const Eigen::VectorXd scale = column_scales(theta);
  const Eigen::MatrixXd A = theta * scale.cwiseInverse().asDiagonal();
  SindyFit fit;
  fit.xi = Eigen::MatrixXd::Zero(p, dX.cols());
  for (long target = 0; target < dX.cols(); ++target) {
    // fixed coefficients leave the free set and move to the right-hand side
    std::vector<bool> fixed(p, false);
    Eigen::VectorXd xi_fixed = Eigen::VectorXd::Zero(p);  // physical units
    for (const FixedCoefficient& f : o.fixed) {
      if (f.target != target) continue;
      if (f.term < 0 || f.term >= p) throw std::invalid_argument("sindy_fit: a fixed coefficient names no term");
      fixed[f.term] = true;
      xi_fixed(f.term) = f.value;
    }
    const Eigen::VectorXd y = dX.col(target) - theta * xi_fixed;
    std::vector<int> support;
    for (int j = 0; j < p; ++j)
      if (!fixed[j]) support.push_back(j);
    // below threshold in physical units
    auto small = [&](const Eigen::VectorXd& xn, int j) { return std::abs(xn(j) / scale(j)) < o.threshold; };
    Eigen::VectorXd xn = fit_on_support(A, y, support, o.alpha);
    if (o.optimizer == "lasso") {
      // coordinate descent over the free columns, then thresholding and a refit on the support
      const double N = static_cast<double>(A.rows());
      Eigen::VectorXd w = Eigen::VectorXd::Zero(p);
      Eigen::VectorXd r = y;
      for (int it = 0; it < o.max_iter; ++it) {
        double change = 0.0, size = 0.0;
        for (int j : support) {
          const double norm2 = A.col(j).squaredNorm() / N;
          if (norm2 == 0.0) continue;
          const double rho = A.col(j).dot(r) / N + norm2 * w(j);
          const double next = (rho > o.alpha ? rho - o.alpha : rho < -o.alpha ? rho + o.alpha : 0.0) / norm2;
          if (next != w(j)) r -= A.col(j) * (next - w(j));
          change = std::max(change, std::abs(next - w(j)));
          size = std::max(size, std::abs(next));
          w(j) = next;
        }
        ++fit.iterations;
        if (change <= o.tol * std::max(size, 1e-300)) break;
      }
      std::vector<int> kept;
      for (int j : support)
        if (w(j) != 0.0 && !small(w, j)) kept.push_back(j);
      support = kept;
      xn = fit_on_support(A, y, support, 0.0);
    } else if (o.optimizer == "stlsq") {
      for (int it = 0; it < 50; ++it) {
        std::vector<int> kept;
        for (int j : support)
          if (!small(xn, j)) kept.push_back(j);
        ++fit.iterations;
        if (kept.size() == support.size()) break;
        support = kept;
        xn = fit_on_support(A, y, support, o.alpha);
      }
    } else {
      // SR3 over the free columns: (AᵀA + I/ν)ξ = Aᵀy + w/ν, w = hard threshold of ξ
      const long nf = static_cast<long>(support.size());
      Eigen::MatrixXd Af(A.rows(), nf);
      for (long k = 0; k < nf; ++k) Af.col(k) = A.col(support[k]);
      Eigen::MatrixXd H = Af.transpose() * Af;
      H.diagonal().array() += 1.0 / o.nu;
      const Eigen::LDLT<Eigen::MatrixXd> ldlt(H);
      const Eigen::VectorXd Aty = Af.transpose() * y;
      Eigen::VectorXd w = Eigen::VectorXd::Zero(nf);
      for (long k = 0; k < nf; ++k) w(k) = xn(support[k]);
      Eigen::VectorXd xf = w;
      for (int it = 0; it < o.max_iter; ++it) {
        const Eigen::VectorXd next = ldlt.solve(Aty + w / o.nu);
        const double change = (next - xf).norm() / std::max(1e-300, next.norm());
        xf = next;
        for (long k = 0; k < nf; ++k) w(k) = std::abs(xf(k) / scale(support[k])) < o.threshold ? 0.0 : xf(k);
        ++fit.iterations;
        if (change < o.tol) break;
      }
      std::vector<int> kept;
      for (long k = 0; k < nf; ++k)
        if (w(k) != 0.0) kept.push_back(support[k]);
      support = kept;
      xn = fit_on_support(A, y, support, o.alpha);
    }
    for (int j = 0; j < p; ++j) fit.xi(j, target) = fixed[j] ? xi_fixed(j) : xn(j) / scale(j);
  }
  return fit;
}

std::string sindy_equation(const Eigen::VectorXd& xi, const std::vector<LibraryTerm>& terms, const std::string& target,
                           int digits) {
  std::string s = target + " =";
  bool first = true;
  char buf[64];
  for (long j = 0; j < xi.size(); ++j) {
    const double c = xi(j);
    if (c == 0.0) continue;
    const double a = std::abs(c);
    std::snprintf(buf, sizeof buf, "%.*g", digits, a);
    s += first ? (c < 0 ? " -" : " ") : (c < 0 ? " - " : " + ");
    const bool unit = terms[j].name == "1";
    s += buf;
    if (!unit) s += " " + terms[j].name;
    first = false;
  }
  if (first) s += " 0";
  return s;
}

}  // namespace fivsim

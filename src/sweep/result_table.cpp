// src/sweep/result_table.cpp — the columns of a sweep's tables, a chunk's values in them, and
// their CSV text (sweep/result_table.hpp).
#include "fivsim/sweep/result_table.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "fivsim/sweep/sweep.hpp"
#include "fivsim/io/output.hpp"

namespace fivsim::sweep {

int TableSchema::column(const std::string& name) const {
  for (std::size_t c = 0; c < names.size(); ++c)
    if (names[c] == name) return static_cast<int>(c);
  return -1;
}

std::string case_class_name(int klass, int period_n) {
  switch (static_cast<CaseClass>(klass)) {
    case CaseClass::periodic:
      return "periodic-" + std::to_string(period_n);
    case CaseClass::chaotic:
      return "chaotic";
    case CaseClass::no_stick_slip:
      return "no-stick-slip";
    case CaseClass::diverged:
      return "diverged";
    case CaseClass::unclassified:
      return "unclassified";
    case CaseClass::quasi_periodic:
      return "quasi-periodic";
    case CaseClass::undetermined:
      return "undetermined";
  }
  return "?";
}

std::vector<std::pair<std::string, int>> class_words() {
  std::vector<std::pair<std::string, int>> words;
  // unclassified: a case of a sweep that does not classify, which has no class column
  for (const CaseClass k : {CaseClass::chaotic, CaseClass::no_stick_slip, CaseClass::diverged, CaseClass::unclassified,
                            CaseClass::quasi_periodic, CaseClass::undetermined})
    words.emplace_back(case_class_name(static_cast<int>(k), 0), static_cast<int>(k));
  for (int n = 1; n <= kPeriodicClassCodes; ++n)
    words.emplace_back(case_class_name(static_cast<int>(CaseClass::periodic), n), kPeriodicClassCodes + n);
  return words;
}

double class_word_code(double klass, double period_n) {
  return static_cast<int>(klass) == static_cast<int>(CaseClass::periodic) ? kPeriodicClassCodes + period_n : klass;
}

double class_of_word_code(double code) {
  return code > kPeriodicClassCodes ? static_cast<double>(static_cast<int>(CaseClass::periodic)) : code;
}

std::vector<std::string> status_names() {
  std::vector<std::string> names;
  for (int s = 0; s <= static_cast<int>(Status::too_many_events); ++s)
    names.push_back(status_name(static_cast<Status>(s)));
  return names;
}

std::string point_kind_name(double code) {
  if (code < 0) return "poincare";
  const int c = static_cast<int>(code);
  return std::string(event_kind_name(static_cast<EventKind>(c / 64))) + "@" + std::to_string(c % 64);
}

std::vector<std::pair<std::string, int>> point_kind_names(int n_contacts) {
  std::vector<std::pair<std::string, int>> names{{"poincare", -1}};
  for (int k = 1; k < kEventKindCount; ++k)
    for (int c = 0; c < n_contacts; ++c) names.emplace_back(point_kind_name(k * 64 + c), k * 64 + c);
  return names;
}

TableSchema case_schema(const CaseTableLayout& l, const std::vector<std::string>& parameter_paths) {
  TableSchema s;
  const unsigned o = l.observers;
  s.add("case", ColumnKind::whole);
  for (const auto& p : parameter_paths) s.add(p, ColumnKind::real);
  if (observes_class(o)) {
    s.add("class", ColumnKind::case_class);
    s.add("period_n", ColumnKind::whole);
    s.add("period", ColumnKind::real);
    // the evidence of the class (case_runner.hpp classify_case)
    s.add("samples", ColumnKind::whole);
    s.add("recurrence", ColumnKind::real);
    s.add("settled_at", ColumnKind::real);
    // what the case settled on (sweep/basins.hpp): each q and u's range over it
    for (const char* bound : {"settled_min_", "settled_max_"})
      for (const char* series : {"q", "u"})
        for (int i = 0; i < l.n_dof; ++i) s.add(bound + (series + std::to_string(i)), ColumnKind::real);
  }
  if (o & kObserveTransitions) s.add("n_transitions", ColumnKind::whole);
  if (o & kObservePoincare) s.add("n_section", ColumnKind::whole);
  const std::vector<std::string> names = series_names(l.n_dof, l.n_contacts);
  for (const char* stat : {"rms_", "min_", "max_"}) {
    if (std::string(stat) != "rms_" && !(o & kObserveMinMax)) continue;
    for (const auto& n : names) s.add(stat + n, ColumnKind::real);
  }
  if (o & kObserveFractions)
    for (const char* h : {"frac_free", "frac_stick", "frac_slip_neg", "frac_slip_pos"}) s.add(h, ColumnKind::real);
  if (l.lyapunov) {
    s.add("lyapunov", ColumnKind::real);
    s.add("lyapunov_err", ColumnKind::real);
  }
  if (o & kObserveLcpResidual) s.add("max_lcp_residual", ColumnKind::real);
  if (o & kObserveOutputError) s.add("output_rmse", ColumnKind::real);
  if (o & kObserveOrbit) {
    s.add("orbit_n", ColumnKind::whole);
    for (const char* h : {"orbit_residual", "orbit_period", "orbit_multiplier", "orbit_multiplier_arg",
                          "orbit_unit_distance", "orbit_settle_t"})
      s.add(h, ColumnKind::real);
  }
  s.add("steps", ColumnKind::whole);
  s.add("status", ColumnKind::status);
  s.add("failed_at", ColumnKind::real);
  s.add("failed_step", ColumnKind::whole);
  if (l.pinn)
    for (const char* h : {"pinn_iterations", "pinn_lcp_iterations"}) s.add(h, ColumnKind::whole);
  if (l.pinn) s.add("pinn_max_loss", ColumnKind::real);
  if (l.pinn) s.add("pinn_unconverged", ColumnKind::whole);
  return s;
}

TableSchema point_schema(int n_dof) {
  TableSchema s;
  s.add("case", ColumnKind::whole);
  s.add("kind", ColumnKind::point_kind);
  s.add("t", ColumnKind::real);
  for (const char* prefix : {"q", "u"})
    for (int i = 0; i < n_dof; ++i) s.add(prefix + std::to_string(i), ColumnKind::real);
  return s;
}

template <class D>
void case_rows_into(const CaseTableLayout& l, long first, long n, const CaseResult<D>* results, const double* rows,
                    long row_stride, const PinnTotals* pinn, double* values, long stride) {
  const int columns = case_column_count(l);
  // a block of cases' rows side by side, then each column's stretch of the block written at once
  // (written straight into the columns, a row's values would land on as many cache lines); the
  // blocks on all threads
  constexpr long kBlock = 256;
  const long blocks = (n + kBlock - 1) / kBlock;
#pragma omp parallel if (blocks > 1)
  {
    std::vector<double> block(static_cast<std::size_t>(kBlock * columns));
#pragma omp for schedule(static)
    for (long b = 0; b < blocks; ++b) {
      const long lo = b * kBlock, m = std::min(kBlock, n - lo);
      for (long i = 0; i < m; ++i)
        case_row(l, first + lo + i, rows + lo + i, row_stride, results[lo + i], pinn ? pinn + lo + i : nullptr,
                 block.data() + i * columns, 1);
      for (int c = 0; c < columns; ++c) {
        double* col = values + static_cast<long>(c) * stride + lo;
        for (long i = 0; i < m; ++i) col[i] = block[static_cast<std::size_t>(i * columns + c)];
      }
    }
  }
}

template <class D>
void case_columns(const CaseTableLayout& l, long first, long n, const CaseResult<D>* results, const double* rows,
                  const PinnTotals* pinn, ColumnBlock& out) {
  out.resize(n, case_column_count(l));
  case_rows_into(l, first, n, results, rows, n, pinn, out.values.data(), n);
}

template <class D>
void count_cases(const CaseResult<D>* results, long n, CaseCounts& counts) {
  for (long i = 0; i < n; ++i) {
    counts.steps += static_cast<unsigned long long>(results[i].steps);
    if (unsigned long long* k = case_class_count(counts, results[i])) ++*k;
    ++*case_status_count(counts, results[i]);
  }
}

template <class D>
void point_columns(int n_dof, const SweepAnalysis& an, long first, long n, const CaseResult<D>* results,
                   const double* points, ColumnBlock& out) {
  const int capacity = an.capacity;
  const long per_case = case_points_size(n_dof, an);
  const int stride = point_stride(n_dof);
  long rows = 0;
  for (long i = 0; i < n; ++i)
    for (int kind = 0; kind < kPointKinds; ++kind) rows += std::min<long>(results[i].points_seen[kind], capacity);
  out.resize(rows, stride + 1);
  long r = 0;
  for (long i = 0; i < n; ++i) {
    const double* base = points + i * per_case;
    for (int kind = 0; kind < kPointKinds; ++kind) {
      const long seen = results[i].points_seen[kind];
      const int kept = static_cast<int>(std::min<long>(seen, capacity));
      for (int j = 0; j < kept; ++j, ++r) {
        const double* row = ring_point(base, kind, seen, capacity, stride, j);
        // case, kind, t, q.., u..
        out.column(0)[r] = static_cast<double>(first + i);
        out.column(1)[r] = row[1];
        out.column(2)[r] = row[0];
        for (int c = 2; c < stride; ++c) out.column(c + 1)[r] = row[c];
      }
    }
  }
}

template <class D>
void residual_series(int n_dof, const SweepAnalysis& an, long n, const CaseResult<D>* results, const double* points,
                     std::vector<double>& out) {
  const long per_case = case_points_size(n_dof, an), m = an.reference_n;
  out.assign(static_cast<std::size_t>(n * m), std::nan(""));
  for (long i = 0; i < n; ++i) {
    const double* series = points + i * per_case + case_rings_size(n_dof, an.capacity);
    // samples 0 … steps were written; later slots hold an earlier chunk's numbers
    const long written = std::min(m, results[i].steps + 1);
    std::copy(series, series + written, out.begin() + i * m);
  }
}

std::string csv_header(const TableSchema& s) {
  std::string h;
  for (int c = 0; c < s.size(); ++c) h += (c ? "," : "") + s.names[static_cast<std::size_t>(c)];
  return h + "\n";
}

std::string code_text(ColumnKind kind, double code, double period_n) {
  switch (kind) {
    case ColumnKind::case_class:
      return case_class_name(static_cast<int>(code), static_cast<int>(period_n));
    case ColumnKind::status:
      return status_name(static_cast<Status>(static_cast<int>(code)));
    case ColumnKind::point_kind:
      return point_kind_name(code);
    default:
      return format_double(code);
  }
}

void csv_rows(const TableSchema& s, const ColumnBlock& b, std::string& text) {
  const int period_col = s.column("period_n");
  // slices of rows formatted on all threads and joined in order: the text of one serial pass
  constexpr long kSlice = 4096;
  const long slices = (b.rows + kSlice - 1) / kSlice;
  std::vector<std::string> parts(static_cast<std::size_t>(slices));
#pragma omp parallel for schedule(dynamic, 1) if (slices > 1)
  for (long k = 0; k < slices; ++k) {
    CsvRows rows;
    for (long r = k * kSlice; r < std::min(b.rows, (k + 1) * kSlice); ++r) {
      for (int c = 0; c < s.size(); ++c) {
        const double x = b.column(c)[r];
        const ColumnKind kind = s.kinds[static_cast<std::size_t>(c)];
        if (kind == ColumnKind::whole)
          rows.whole(x);
        else if (kind == ColumnKind::real)
          rows.field(x);
        else
          rows.field(code_text(kind, x, period_col >= 0 ? b.column(period_col)[r] : 0.0).c_str());
      }
      rows.end_row();
    }
    parts[static_cast<std::size_t>(k)] = rows.take();
  }
  std::size_t size = text.size();
  for (const std::string& p : parts) size += p.size();
  text.reserve(size);
  for (const std::string& p : parts) text += p;
}

#define FIVSIM_RESULT_TABLE_INSTANTIATE(D)                                                                       \
  template void case_rows_into<D>(const CaseTableLayout&, long, long, const CaseResult<D>*, const double*, long, \
                                  const PinnTotals*, double*, long);                                             \
  template void case_columns<D>(const CaseTableLayout&, long, long, const CaseResult<D>*, const double*,         \
                                const PinnTotals*, ColumnBlock&);                                                \
  template void count_cases<D>(const CaseResult<D>*, long, CaseCounts&);                                         \
  template void point_columns<D>(int, const SweepAnalysis&, long, long, const CaseResult<D>*, const double*,     \
                                 ColumnBlock&);                                                                  \
  template void residual_series<D>(int, const SweepAnalysis&, long, const CaseResult<D>*, const double*,         \
                                   std::vector<double>&);
FIVSIM_SWEEP_FOR_EACH_DIMS(FIVSIM_RESULT_TABLE_INSTANTIATE)
#undef FIVSIM_RESULT_TABLE_INSTANTIATE

}  // namespace fivsim::sweep

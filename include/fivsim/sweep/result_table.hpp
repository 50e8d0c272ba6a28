// fivsim/sweep/result_table.hpp — a sweep's results as columns: the columns of cases.csv and
// points.csv (and of results.h5), what one chunk's cases put in them, and their CSV text. One
// chunk's values are one block of columns; the CSV writer, the binary spill behind results.h5,
// the MPI exchange and an in-memory caller all take that block as it is.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fivsim/sweep/host_memory.hpp"
#include "fivsim/cases/case_columns.hpp"
#include "fivsim/cases/case_runner.hpp"
#include "fivsim/integrate/pinn_step.hpp"

namespace fivsim::sweep {

// how a column's numbers read: a real number, a whole number, or a code with names (a case's
// class, a status, a point's kind)
enum class ColumnKind : int { real = 0, whole, case_class, status, point_kind };

struct TableSchema {
  std::vector<std::string> names;
  std::vector<ColumnKind> kinds;
  void add(std::string name, ColumnKind kind) {
    names.push_back(std::move(name));
    kinds.push_back(kind);
  }
  int size() const { return static_cast<int>(names.size()); }
  // the column's position, or −1
  int column(const std::string& name) const;
};

// rows of a table, column by column: column c of row r at values[c * rows + r]
struct ColumnBlock {
  long rows = 0;
  std::vector<double> values;
  // room for n_rows × n_columns values (what the block held is not kept in place)
  void resize(long n_rows, int n_columns) {
    rows = n_rows;
    resize_for_writing(values, static_cast<std::size_t>(n_rows) * static_cast<std::size_t>(n_columns));
  }
  double* column(int c) { return values.data() + static_cast<long>(c) * rows; }
  const double* column(int c) const { return values.data() + static_cast<long>(c) * rows; }
};

// the text of a code column's value: "periodic-2" (with the row's period_n), "nonfinite",
// "stick_to_slip@1", "poincare"
std::string case_class_name(int klass, int period_n);
std::string point_kind_name(double code);
// the text of a code column's cell (what cases.csv and points.csv hold): period_n is the row's,
// read by a class only
std::string code_text(ColumnKind kind, double code, double period_n);
// every name a point-kind code can have for n_contacts contacts, with its code
std::vector<std::pair<std::string, int>> point_kind_names(int n_contacts);
// the names of the statuses by code
std::vector<std::string> status_names();
// every word a class can be written as, with its code in results.h5: the classes by their codes,
// and periodic-N (N = 1 … kPeriodicClassCodes, cases/case_columns.hpp) as kPeriodicClassCodes + N, so that
// results.h5 says "periodic-2" as cases.csv and the Python module do
std::vector<std::pair<std::string, int>> class_words();
// a row's class and period_n as its code in results.h5, and back
double class_word_code(double klass, double period_n);
double class_of_word_code(double code);

// the case table's columns (cases/case_columns.hpp case_row gives a row's values in this order)
TableSchema case_schema(const CaseTableLayout& layout, const std::vector<std::string>& parameter_paths);
// points.csv: case, kind, t, q0.., u0..
TableSchema point_schema(int n_dof);

// the columns of n cases (the first is case `first`) from their results, rows (parameter k of
// case i at rows[k * n + i]) and PINN totals (null unless layout.pinn)
template <class D>
void case_columns(const CaseTableLayout& layout, long first, long n, const CaseResult<D>* results, const double* rows,
                  const PinnTotals* pinn, ColumnBlock& out);
// the same rows into columns of another length: column c of case i at values[c · stride + i], the
// swept values at rows[k · row_stride + i]
template <class D>
void case_rows_into(const CaseTableLayout& layout, long first, long n, const CaseResult<D>* results, const double* rows,
                    long row_stride, const PinnTotals* pinn, double* values, long stride);
// n cases' classes, statuses and steps added to counts
template <class D>
void count_cases(const CaseResult<D>* results, long n, CaseCounts& counts);
// the kept points of n cases (kPointKinds rings of an.capacity each per case), oldest first
template <class D>
void point_columns(int n_dof, const SweepAnalysis& an, long first, long n, const CaseResult<D>* results,
                   const double* points, ColumnBlock& out);
// an.keep_residuals: the residual series of n cases, an.reference_n values each in case order
// (NaN from the first step a case did not reach: it failed or stopped)
template <class D>
void residual_series(int n_dof, const SweepAnalysis& an, long n, const CaseResult<D>* results, const double* points,
                     std::vector<double>& out);

// CSV: the header line, and a block's rows appended to text (numbers as format_double writes them)
std::string csv_header(const TableSchema& schema);
void csv_rows(const TableSchema& schema, const ColumnBlock& block, std::string& text);

}  // namespace fivsim::sweep

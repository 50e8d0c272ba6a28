// src/python/module.cpp — fivsim._core, the compiled part of the Python package: bindings over the
// library calls the command line makes (app/: scenario_run.hpp for a run, sweep.hpp for a sweep kept
// in memory, method_comparison.hpp, stability_scan.hpp, identify_run.hpp, identify_batch.hpp,
// merge.hpp; io/scenario.hpp for loading) that hand back JSON text and numpy arrays (docs/DESIGN.md §6). The
// public API (fivsim/__init__.py) is built on these; nothing here writes result files but merge,
// whose work is joining them.
// Long calls release the GIL and look for signals (Ctrl-C) every 1024 steps of a run, after each
// chunk of a sweep, between the runs of a comparison and the steps of an identification.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "fivsim/app/identify_batch.hpp"
#include "fivsim/app/identify_run.hpp"
#include "fivsim/app/merge.hpp"
#include "fivsim/app/method_comparison.hpp"
#include "fivsim/app/scenario_run.hpp"
#include "fivsim/app/continuation.hpp"
#include "fivsim/app/stability_scan.hpp"
#include "fivsim/app/sweep.hpp"
#include "fivsim/io/scenario.hpp"

namespace py = pybind11;
using nlohmann::json;

namespace fivsim::python {
namespace {

// the scenario as a file path or JSON text, with "/pointer=value" overrides applied in order
json document_of(const std::string& source, bool is_path, const std::vector<std::string>& overrides) {
  json doc;
  if (is_path) {
    doc = load_json_file(source);
  } else {
    doc = parse_json_text(source, "the scenario text");
  }
  for (const auto& s : overrides) apply_override(doc, s);
  return doc;
}

// a vector handed to numpy without a copy: the array owns it
template <class T>
py::array_t<T> to_numpy(std::vector<T>&& v) {
  auto* owned = new std::vector<T>(std::move(v));
  py::capsule owner(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(static_cast<py::ssize_t>(owned->size()), owned->data(), owner);
}

// called with the GIL released: a pending signal (Ctrl-C) becomes the Python exception it raised,
// thrown through the library to the binding, which hands it back to Python
void check_signals() {
  py::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() != 0) throw py::error_already_set();
}

// a time series as timeseries.csv's columns: t, the series in series_names() order, each
// contact's state code (int8, names in contact_state_names), filled row by row
struct SeriesColumns {
  std::vector<std::string> names;
  std::vector<double> t;
  std::vector<std::vector<double>> values;
  std::vector<std::vector<std::int8_t>> states;

  SeriesColumns(std::vector<std::string> series, int n_contacts)
      : names(std::move(series)), values(names.size()), states(static_cast<std::size_t>(n_contacts)) {}
  void add(double time, const std::vector<double>& row, const ContactState* contact) {
    t.push_back(time);
    for (std::size_t k = 0; k < row.size(); ++k) values[k].push_back(row[k]);
    for (std::size_t i = 0; i < states.size(); ++i) states[i].push_back(static_cast<std::int8_t>(contact[i]));
  }
  // the columns handed to numpy (this is left empty)
  py::dict to_dict() {
    py::dict out;
    out["t"] = to_numpy(std::move(t));
    for (std::size_t k = 0; k < names.size(); ++k) out[py::str(names[k])] = to_numpy(std::move(values[k]));
    for (std::size_t i = 0; i < states.size(); ++i)
      out[py::str("state" + std::to_string(i))] = to_numpy(std::move(states[i]));
    return out;
  }
};

py::dict run(const std::string& source, bool is_path, const std::vector<std::string>& overrides,
             const py::object& progress) {
  const LoadedScenario loaded = build_scenario(document_of(source, is_path, overrides));
  const int nc = loaded.model->n_contacts;
  SeriesColumns series(series_names(loaded.model->n_dof, nc), nc);
  ScenarioRunResult result;
  {
    py::gil_scoped_release released;
    result = run_scenario(
        loaded,
        [&](double time, const std::vector<double>& row, const ContactState* contact) {
          series.add(time, row, contact);
        },
        [&](double time, long steps) {
          check_signals();
          if (!progress.is_none()) {
            py::gil_scoped_acquire gil;
            progress(time, loaded.scenario.integrator.t_end, steps);
          }
        });
  }
  py::dict out;
  out["timeseries"] = series.to_dict();
  out["summary"] = result.summary.dump();
  out["complete"] = result.complete;
  out["failure"] = result.failure;
  return out;
}

// a table's columns: reals as float64, whole numbers as int64, codes as indices into a name table
py::dict table_columns(const sweep::TableSchema& schema, std::vector<std::vector<double>>& columns) {
  py::dict out;
  const int period_col = schema.column("period_n");
  for (int c = 0; c < schema.size(); ++c) {
    std::vector<double>& column = columns[static_cast<std::size_t>(c)];
    const sweep::ColumnKind kind = schema.kinds[static_cast<std::size_t>(c)];
    const py::str name(schema.names[static_cast<std::size_t>(c)]);
    if (kind == sweep::ColumnKind::real) {
      out[name] = to_numpy(std::move(column));
    } else if (kind == sweep::ColumnKind::whole) {
      std::vector<std::int64_t> whole(column.begin(), column.end());
      out[name] = to_numpy(std::move(whole));
    } else {
      // (names, index): the module turns them into an array of the CSV's texts
      std::map<std::string, std::int32_t> codes;
      std::vector<std::string> table;
      std::vector<std::int32_t> index(column.size());
      for (std::size_t r = 0; r < column.size(); ++r) {
        const double period_n = period_col >= 0 ? columns[static_cast<std::size_t>(period_col)][r] : 0.0;
        const std::string text = sweep::code_text(kind, column[r], period_n);
        const auto [at, added] = codes.emplace(text, static_cast<std::int32_t>(table.size()));
        if (added) table.push_back(text);
        index[r] = at->second;
      }
      out[name] = py::make_tuple(table, to_numpy(std::move(index)));
    }
  }
  return out;
}

py::dict sweep(const std::string& source, bool is_path, const std::vector<std::string>& overrides,
               const std::string& device, const std::string& precision, long chunk, int threads,
               const py::object& progress, const std::string& kernels, const std::string& kernel_cache) {
  SweepRequest request;
  request.kernels = kernels;
  request.kernel_cache = kernel_cache;
  request.document = document_of(source, is_path, overrides);
  request.device = device;
  request.precision = precision;
  request.chunk = chunk;
  request.threads = threads;
  request.option_prefix = "";  // errors name the keywords
  SweepTables tables;
  request.tables = &tables;
  request.progress = [&](double done, double total, double case_steps) {
    check_signals();
    if (!progress.is_none()) {
      py::gil_scoped_acquire gil;
      progress(done, total, case_steps);
    }
  };
  SweepOutcome outcome;
  {
    py::gil_scoped_release released;
    Ranks ranks;
    outcome = run_sweep_request(request, ranks);
  }
  py::dict out;
  out["summary"] = outcome.summary.dump();
  out["cases"] = table_columns(tables.cases_schema, tables.cases);
  out["points"] = tables.has_points() ? py::object(table_columns(tables.points_schema, tables.points)) : py::none();
  py::list trajectories;
  for (sweep::SweepTrajectory& tr : tables.trajectories) {
    SeriesColumns series(tr.names, static_cast<int>(tr.states.size()));
    series.t = std::move(tr.t);
    series.values = std::move(tr.values);
    for (std::size_t i = 0; i < tr.states.size(); ++i)
      series.states[i].assign(tr.states[i].begin(), tr.states[i].end());
    trajectories.append(py::make_tuple(tr.index, series.to_dict()));
  }
  out["trajectories"] = trajectories;
  return out;
}

// named columns as a dict of arrays: numbers as float64, texts as numpy strings
py::dict named_columns(NamedColumns& table) {
  py::dict out;
  const py::object asarray = py::module_::import("numpy").attr("asarray");
  for (std::size_t c = 0; c < table.names.size(); ++c)
    out[py::str(table.names[c])] = table.text[c] ? asarray(py::cast(table.texts[c]), py::str("str"))
                                                 : py::object(to_numpy(std::move(table.columns[c])));
  return out;
}

// relative record and scenario paths: from base_dir where given, else the config's folder, or the
// working directory for a config given as text or a dict
std::string base_dir_of(const std::string& source, bool is_path, const std::string& given) {
  return !given.empty() ? given : is_path ? std::filesystem::path(source).parent_path().string() : std::string();
}

py::dict identify_batch(const std::string& source, bool is_path, const std::vector<std::string>& overrides,
                        const std::string& base_dir_given, const py::object& progress) {
  const json doc = document_of(source, is_path, overrides);
  if (!doc.is_object() || !doc.contains("sweep"))
    throw InputError("/sweep", "fivsim.identify_batch needs a config with a sweep block; fivsim.identify runs one");
  const IdentifyBatch batch =
      plan_identify_batch(doc, is_path ? source : std::string(), base_dir_of(source, is_path, base_dir_given));
  IdentifyBatchResult result;
  {
    py::gil_scoped_release released;
    result = run_identify_batch(batch, [&](long done, long total) {
      check_signals();
      if (!progress.is_none()) {
        py::gil_scoped_acquire gil;
        progress(done, total, done);
      }
    });
  }
  py::dict out;
  out["summary"] = result.summary.dump();
  out["table"] = named_columns(result.table);
  return out;
}

// the shards' folders joined into `out` (empty: runs/<name>): the merged summary.json's text and
// where it was written
py::tuple merge(const std::vector<std::string>& shards, const std::string& out) {
  MergeOutcome m;
  {
    py::gil_scoped_release released;
    m = merge_shards(shards, out);
  }
  return py::make_tuple(m.summary.dump(), m.out.string());
}

py::dict identify(const std::string& source, bool is_path, const std::vector<std::string>& overrides,
                  const std::string& base_dir_given) {
  const json doc = document_of(source, is_path, overrides);
  if (doc.is_object() && doc.contains("sweep"))
    throw InputError("/sweep",
                     "fivsim.identify runs one identification; fivsim.identify_batch runs a config with a sweep "
                     "block");
  LoadedIdentification loaded = load_identification(doc, base_dir_of(source, is_path, base_dir_given));
  loaded.config.poll = check_signals;
  IdentifyOutcome outcome;
  {
    py::gil_scoped_release released;
    outcome = run_identification(loaded);
  }
  py::dict out;
  out["identified"] = outcome.identified.dump();
  out["record"] = named_columns(outcome.record);
  out["response"] = named_columns(outcome.response);
  out["bounds"] = outcome.bounds.empty() ? py::object(py::none()) : py::object(named_columns(outcome.bounds));
  out["laws"] = outcome.laws.empty() ? py::object(py::none()) : py::object(named_columns(outcome.laws));
  return out;
}

py::dict compare(const std::string& source, bool is_path, const std::vector<std::string>& overrides,
                 const std::string& methods, const std::string& dt, double window, bool series) {
  const LoadedScenario loaded = build_scenario(document_of(source, is_path, overrides));
  const int nc = loaded.model->n_contacts;
  const std::vector<std::string> names = series_names(loaded.model->n_dof, nc);
  std::map<std::string, SeriesColumns> kept;  // each run's series, when asked
  ComparisonOptions options;
  options.methods = methods;
  options.dt = dt;
  options.window = window;
  options.say = [](const std::string&) { check_signals(); };
  if (series)
    options.series = [&](const std::string& run) -> RunRowSink {
      SeriesColumns& s = kept.try_emplace(run, names, nc).first->second;
      return [&s](double t, const std::vector<double>& row, const ContactState* contact) { s.add(t, row, contact); };
    };
  Comparison result;
  {
    py::gil_scoped_release released;
    result = compare_methods(loaded, options);
  }
  py::dict out;
  out["reference_ok"] = result.reference_ok;
  out["failure"] = result.failure;
  out["report"] = result.report.dump();
  out["table"] = named_columns(result.table);
  out["markdown"] = result.markdown;
  py::dict runs;
  for (auto& [run, s] : kept) runs[py::str(run)] = s.to_dict();
  out["series"] = runs;
  return out;
}

py::dict stability(const std::string& source, bool is_path, const std::vector<std::string>& overrides,
                   const std::string& param, const std::vector<double>& linspace) {
  const json doc = document_of(source, is_path, overrides);
  StabilityScan scan;
  {
    py::gil_scoped_release released;
    scan = scan_stability(doc, param, linspace);
  }
  py::dict out;
  out["report"] = scan.report.dump();
  out["table"] = named_columns(scan.table);
  return out;
}

py::dict continuation(const std::string& source, bool is_path, const std::vector<std::string>& overrides, int threads,
                      const std::string& device) {
  if (device != "cpu" && device != "cuda")
    throw std::invalid_argument("device must be \"cpu\" or \"cuda\", got \"" + device + "\"");
  const json doc = document_of(source, is_path, overrides);
  ContinuationRun run;
  {
    py::gil_scoped_release released;
    run = run_continuation(doc, threads, {}, device == "cuda" ? ShotDevice::cuda : ShotDevice::cpu);
  }
  py::dict out;
  out["report"] = run.report.dump();
  out["branches"] = named_columns(run.branches);
  out["bifurcations"] = named_columns(run.bifurcations);
  out["orbit_points"] = named_columns(run.orbit_points);
  out["curves"] = named_columns(run.curves);
  return out;
}

// the validated document as the library keeps it (overrides applied)
std::string load(const std::string& source, bool is_path, const std::vector<std::string>& overrides) {
  const LoadedScenario loaded = validate_document(document_of(source, is_path, overrides));
  return loaded.scenario.document.dump();
}

}  // namespace
}  // namespace fivsim::python

PYBIND11_MODULE(_core, m) {
  using namespace fivsim::python;
  m.doc() = "fivsim's compiled core; use the fivsim package (import fivsim), not this module";
  // bad input becomes fivsim.InputError (defined by the package) carrying the JSON pointer
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const fivsim::InputError& e) {
      // a command-line option the library names ("--param") is a keyword argument here ("param")
      std::string pointer = e.pointer, message = e.what();
      if (pointer.rfind("--", 0) == 0 && message.rfind(pointer, 0) == 0) {
        message.erase(0, 2);
        pointer.erase(0, 2);
      }
      const py::object cls = py::module_::import("fivsim").attr("InputError");
      const py::object error = cls(message, pointer);
      PyErr_SetObject(cls.ptr(), error.ptr());
    }
  });
  m.def("load", &load, py::arg("source"), py::arg("is_path"), py::arg("overrides"));
  m.def("run", &run, py::arg("source"), py::arg("is_path"), py::arg("overrides"), py::arg("progress"));
  m.def("compare", &compare, py::arg("source"), py::arg("is_path"), py::arg("overrides"), py::arg("methods"),
        py::arg("dt"), py::arg("window"), py::arg("series"));
  m.def("stability", &stability, py::arg("source"), py::arg("is_path"), py::arg("overrides"), py::arg("param"),
        py::arg("linspace"));
  m.def("continuation", &continuation, py::arg("source"), py::arg("is_path"), py::arg("overrides"),
        py::arg("threads") = 0, py::arg("device") = "cpu");
  m.def("identify_batch", &identify_batch, py::arg("source"), py::arg("is_path"), py::arg("overrides"),
        py::arg("base_dir"), py::arg("progress"));
  m.def("merge", &merge, py::arg("shards"), py::arg("out"));
  m.def("identify", &identify, py::arg("source"), py::arg("is_path"), py::arg("overrides"), py::arg("base_dir"));
  m.def("sweep", &sweep, py::arg("source"), py::arg("is_path"), py::arg("overrides"), py::arg("device"),
        py::arg("precision"), py::arg("chunk"), py::arg("threads"), py::arg("progress"), py::arg("kernels"),
        py::arg("kernel_cache"));
  std::vector<std::string> state_names;
  for (int k = 0; k < 4; ++k) state_names.push_back(fivsim::contact_state_name(static_cast<fivsim::ContactState>(k)));
  m.attr("contact_state_names") = state_names;
  m.attr("friction_law_names") = fivsim::friction_law_names();
  m.attr("built_with_cuda") =
#ifdef FIVSIM_HAVE_CUDA
      true;
#else
      false;
#endif
}
